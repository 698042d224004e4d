// Loaded before every test run (bunfig.toml): what the whole run shares.
// The product's arktype mode (src/main.ts sets it first), before any test builds a schema.
import "../../src/vocabulary/arktype-mode.ts";
import { afterAll } from "bun:test";
import { removeTempDirs } from "./helpers.ts";

// A hook in a preload file runs once, after the last test file.
afterAll(removeTempDirs);
