// The Architect's grant on task.create, tried from the agent's side: bound to a run, it proposes
// tasks of that run and nothing else (never an open one, never another run's, never without a run);
// an implementer creates none at all. The check is in call(), so every door (socket, HTTP, stdio)
// meets the same one; the socket's is walked by the autopilot's tests (test/chair/).
import { describe, expect, test } from "bun:test";
import { call } from "../../src/dispatch.ts";
import { agentContext, makeProject } from "../_helpers/helpers.ts";

describe("task.create by an agent", () => {
	test("the Architect bound to a run proposes tasks of that run only; another run's, none without a run, and an implementer none", async () => {
		const p = await makeProject();
		await p.call("run.open", { run_id: "R-1", goal: "g" });
		await p.call("run.open", { run_id: "R-2", goal: "h" });
		const architect = await agentContext(p, "architect-1", { run_id: "R-1" });
		const task = { title: "t", body_md: "b", readable_paths: ["src/**"], assigned_agent_id: "implementer-1" };

		const made = await call(p.rt, "task.create", { ...task, run_id: "R-1" }, architect);
		expect(made.task).toMatchObject({ status: "proposed", run_id: "R-1" });

		const elsewhere = await p.fail("task.create", { ...task, run_id: "R-2" }, architect);
		expect(elsewhere.code).toBe("permission_denied");
		const unbound = await p.fail("task.create", task, architect);
		expect(unbound.code).toBe("permission_denied");
		expect(unbound.message).toContain("run_id");

		await p.call("task.create", {
			task_id: "T-i",
			title: "i",
			body_md: "b",
			assigned_agent_id: "implementer-1",
		});
		const implementer = await agentContext(p, "implementer-1", { task_id: "T-i" });
		expect((await p.fail("task.create", { ...task, run_id: "R-1" }, implementer)).code).toBe(
			"permission_denied",
		);
	});
});
