// Loaded before every test run (bunfig.toml): what the whole run shares.
import { afterAll } from "bun:test";
import { removeTempDirs } from "./helpers.ts";

// A hook in a preload file runs once, after the last test file.
afterAll(removeTempDirs);
