// `npm run docs` (part): src/registry/schemas.json, every tool's JSON Schemas built from the
// registry's arktype types, which processes read instead of building them (src/registry/index.ts).
import { join } from "node:path";
import { SCHEMAS_FILE, schemasJson } from "../src/registry/index.ts";

await Bun.write(join(import.meta.dir, "..", "src", "registry", SCHEMAS_FILE), schemasJson());
