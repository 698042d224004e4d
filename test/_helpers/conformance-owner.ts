// The tests' own owner for the MCP conformance suite: `bun test/_helpers/conformance-owner.ts ROOT`
// runs the project's owner as `roundtable start` does, with the suite's fixtures (tools, resources,
// prompts) served beside the registry: conformance-fixtures.ts to 2025-11-25 sessions,
// conformance-modern.ts to 2026-07-28 requests. The product never loads them: only this entry
// passes them in.
import { runOwner } from "../../src/owner/index.ts";
import { legacyFixtures } from "./conformance-fixtures.ts";
import { modernFixtures } from "./conformance-modern.ts";

const root = process.argv[2];
if (!root) {
	process.stderr.write("usage: bun test/_helpers/conformance-owner.ts ROOT\n");
	process.exit(2);
}
process.exit(
	await runOwner(root, {
		http: true,
		chair: true,
		intervalMs: 1000,
		mcpExtension: { legacy: legacyFixtures, modern: modernFixtures },
		ready: (line) => process.stdout.write(`${line}\n`),
		log: (line) => process.stderr.write(`${line}\n`),
	}),
);
