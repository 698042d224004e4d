// The Architect's grant on task.create, tried from the agent's side: bound to a run, it proposes
// tasks of that run and nothing else (never an open one, never another run's, never without a run,
// never one that reads outside the run's scope); an implementer creates none at all. The check is in
// call(), so every door meets the same one: tried here in process and over HTTP in both eras; the
// session socket's is walked by the autopilot's tests (test/chair/).
import { describe, expect, test } from "bun:test";
import { operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { capabilityHash, newCapability } from "../../src/sessions/capability.ts";
import { agentContext, makeProject } from "../_helpers/helpers.ts";
import { loopbackHttp } from "../_helpers/loopback-http.ts";
import { agentClient, ERAS, outcome } from "../_helpers/permissions-fixture.ts";

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

	test("the Architect's readable_paths stay inside the run's scope; the operator's do not have to", async () => {
		const p = await makeProject();
		const opened = await call(
			p.rt,
			"run.open",
			{ run_id: "R-1", goal: "g", scope: ["src", "./docs/guide.md"] },
			operatorContext(),
		);
		expect(opened.run.scope).toEqual(["src", "docs/guide.md"]);
		const architect = await agentContext(p, "architect-1", { run_id: "R-1" });
		const task = (readable_paths: string[]) => ({ title: "t", body_md: "b", run_id: "R-1", readable_paths });

		for (const inside of [["src"], ["src/a.ts", "src/lib"], ["src/**/*.ts"], ["docs/guide.md"], []]) {
			const made = await call(p.rt, "task.create", task(inside), architect);
			expect(made.task.status).toBe("proposed");
		}
		// Outside, whatever the spelling: a sibling, a prefix that is not a folder of it, a glob that
		// could match anywhere, one that leaves the repository.
		for (const [outside, field] of [
			[["src", "lib"], "readable_paths[1]"],
			[["srcx/a.ts"], "readable_paths[0]"],
			[["src*"], "readable_paths[0]"],
			[["**/*.ts"], "readable_paths[0]"],
			[["docs"], "readable_paths[0]"],
			[["docs/guide.md.bak"], "readable_paths[0]"],
		] as const) {
			const refused = await p.fail("task.create", task([...outside]), architect);
			expect(refused.code).toBe("permission_denied");
			expect(refused.message).toContain("outside run R-1's scope (src, docs/guide.md)");
			expect(refused.details).toMatchObject({ field });
		}
		expect((await p.fail("task.create", task(["../x"]), architect)).code).toBe("invalid_argument");
		// Nothing was made of the refused ones.
		const listed = await p.call("task.list", { run_id: "R-1" });
		expect(listed.tasks).toHaveLength(5);

		// The operator sets what a task may read wherever it likes (it may open the run's proposals too).
		const own = await p.call("task.create", task(["lib"]));
		expect(own.task).toMatchObject({ status: "open", readable_paths: ["lib"] });

		// A run without a scope: the whole repository, as readable_paths may name it.
		await p.call("run.open", { run_id: "R-2", goal: "h" });
		const free = await agentContext(p, "architect-1", { run_id: "R-2" });
		const anywhere = await call(p.rt, "task.create", { ...task(["**/*.ts"]), run_id: "R-2" }, free);
		expect(anywhere.task.status).toBe("proposed");
	});

	test("a run's scope names folders and files inside the repository, never globs or credentials", async () => {
		const p = await makeProject();
		for (const [scope, field, why] of [
			[["src/**"], "scope[0]", "not globs"],
			[["src", "/etc"], "scope[1]", "relative to the repository root"],
			[["../up"], "scope[0]", "leaves the repository"],
			[[".env"], "scope[0]", "credentials or configuration"],
		] as const) {
			const refused = await p.fail("run.open", { run_id: "R-1", scope: [...scope] });
			expect(refused.code).toBe("invalid_argument");
			expect(refused.details).toMatchObject({ field });
			expect(refused.message).toContain(why);
		}
		expect((await p.call("table.get_state", {})).runs).toHaveLength(0);
		// Continuing a run with a new scope changes it, with an event that says so.
		await p.call("run.open", { run_id: "R-1", scope: ["src"] });
		const again = await p.call("run.open", { run_id: "R-1", scope: ["src", "test"] });
		expect(again).toMatchObject({ action: "continued", run: { scope: ["src", "test"] } });
		const watched = (await p.call("table.watch", { limit: 100 })) as {
			events: { type: string; payload: Record<string, unknown> }[];
		};
		const events = watched.events.filter((e) => e.type === "run.updated");
		expect(events.map((e) => e.payload.scope)).toEqual([["src", "test"]]);
	});
});

describe("the run's scope from an agent's own door", () => {
	test("over HTTP with the Architect's capability, in both eras: inside the scope proposed, outside refused", async () => {
		const p = await makeProject();
		const server = loopbackHttp(p.rt, { loopbackAuth: "token", operatorTokens: ["scope-test"] });
		try {
			await call(p.rt, "run.open", { run_id: "R-1", goal: "g", scope: ["src"] }, operatorContext());
			for (const era of ERAS) {
				const raw = newCapability();
				await p.call("session.mint", {
					agent_id: "architect-1",
					capability_sha256: capabilityHash(raw),
					run_id: "R-1",
				});
				const client = await agentClient(server.url, raw, era);
				try {
					const task = (readable_paths: string[]) => ({
						title: "t",
						body_md: "b",
						run_id: "R-1",
						readable_paths,
					});
					const inside = await outcome(client, "task.create", task(["src/a.ts"]));
					expect({ era, inside }).toMatchObject({
						era,
						inside: { ok: true, result: { task: { status: "proposed" } } },
					});
					const outside = await outcome(client, "task.create", task(["docs/**"]));
					expect({ era, outside }).toMatchObject({
						era,
						outside: {
							ok: false,
							code: "permission_denied",
							message: expect.stringContaining("outside run R-1's scope (src)"),
						},
					});
				} finally {
					await client.close();
				}
			}
		} finally {
			await server.close();
		}
	});
});
