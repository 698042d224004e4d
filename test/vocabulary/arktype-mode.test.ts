// Every process checks arguments with arktype jitless (src/vocabulary/arktype-mode.ts): the mode is
// set before the first schema is built (src/vocabulary/arktype.ts, the one door to arktype, imports it
// first; test/architecture.test.ts holds the door), and it is what arktype then does.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type } from "arktype";
import { findTool } from "../../src/registry/index.ts";
import { validateArgs } from "../../src/registry/validate.ts";
import { REPO } from "../_helpers/helpers.ts";

test("src/vocabulary/arktype.ts sets the mode before it loads arktype", () => {
	const text = readFileSync(join(REPO, "src/vocabulary/arktype.ts"), "utf8");
	const imports = text.match(/^(?:import|export) .*$/gm) ?? [];
	expect(imports[0]).toBe('import "./arktype-mode.ts";');
});

test("a schema built in the mode is walked, never compiled, and still refuses what it should", () => {
	const t = type({ task_id: "string" });
	expect((t as unknown as { precompilation?: string }).precompilation).toBeUndefined();
	const tool = findTool("task.get");
	if (!tool) throw new Error("no task.get");
	expect(validateArgs(tool, { task_id: "T-1" })).toEqual({ task_id: "T-1" });
	expect(() => validateArgs(tool, { task_id: 7 })).toThrow(
		"argument 'task_id' must be an id of 1-128 characters",
	);
});
