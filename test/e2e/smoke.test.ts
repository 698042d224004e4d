import { expect, test } from "bun:test";
import { makeProject } from "../_helpers/helpers.ts";

test("a project answers table.get_state", async () => {
	const p = await makeProject();
	const state = await p.call("table.get_state");
	expect((state.agents as unknown[]).length).toBe(8);
});
