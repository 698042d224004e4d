// Loaded before every test run (bunfig.toml): what the whole run shares.
// The product's arktype mode (src/vocabulary/arktype.ts sets it), also for a test that imports arktype itself.
import "../../src/vocabulary/arktype-mode.ts";
import { afterAll } from "bun:test";
import { removeTempDirs } from "./helpers.ts";

// A hook in a preload file runs once, after the last test file.
afterAll(removeTempDirs);
