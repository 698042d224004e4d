// One door: every change of state goes through call(). The folders that only drive the tools (the
// CLI, the Chair's loop, config, the owner, transports, init) hold no event append and no write
// transaction; what they change is an operator or internal registry entry, which call() refuses to
// anyone it is not for, and which MCP clients never see.
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallContext, chairContext, operatorContext, systemContext } from "../../src/context.ts";
import { call, callerOf } from "../../src/dispatch.ts";
import { ToolError } from "../../src/errors.ts";
import { TOOLS } from "../../src/registry/index.ts";
import { InFlight } from "../../src/transports/inflight.ts";
import { startSocket } from "../../src/transports/socket.ts";
import { callSocket } from "../../src/transports/socket-client.ts";
import { allEvents, makeProject, REPO, tempDir } from "../_helpers/helpers.ts";
import { loopbackHttp } from "../_helpers/loopback-http.ts";

/** Folders that only translate, schedule or start: the tools and their engines do the writing. */
const DOORLESS = ["cli", "chair", "config", "owner", "transports", "init"];

/** What changes the database: an event, a write transaction, or a store write on a Tx. */
const WRITES: [string, RegExp][] = [
	["an event append", /\.events\.append\(/],
	["a write transaction", /withTransaction\(\s*(?!["']read["'])/],
	[
		"a store write",
		/\btx\.\w+\.(insert|update|upsert|set\w*|delete\w*|remove\w*|finish|end|heartbeat|schedule|renew|decide|request|hold|release|put|ticked|reactivate)\(/,
	],
];

function sourceFiles(dir: string): string[] {
	return readdirSync(dir, { withFileTypes: true, recursive: true })
		.filter((e) => e.isFile() && e.name.endsWith(".ts"))
		.map((e) => join(e.parentPath, e.name));
}

describe("the folders around the door", () => {
	test("hold no event append, no write transaction and no store write", () => {
		const found: string[] = [];
		for (const folder of DOORLESS) {
			for (const file of sourceFiles(join(REPO, "src", folder))) {
				readFileSync(file, "utf8")
					.split("\n")
					.forEach((line, i) => {
						for (const [what, pattern] of WRITES)
							if (pattern.test(line)) found.push(`${relative(REPO, file)}:${i + 1}: ${what}`);
					});
			}
		}
		expect(found).toEqual([]);
	});

	test("the scan finds what it looks for (it would catch the old CLI's writes)", () => {
		const old = [
			'const session = await rt.store.withTransaction("write", async (tx) => {',
			"\t\tawait tx.events.append(",
			'\tawait tx.agents.setEnabled(id, enabled, enabled ? null : "operator", now);',
			"\treturn store.withTransaction(mode, fn);",
		];
		for (const line of old) expect(WRITES.some(([, p]) => p.test(line))).toBe(true);
		expect(
			WRITES.some(([, p]) => p.test('await rt.store.withTransaction("read", (tx) => tx.runs.get(id))')),
		).toBe(false);
	});
});

const agent: CallContext = {
	...operatorContext("http"),
	principal: { kind: "agent", agent_id: "implementer-1", role: "Implementer", session_id: "S-1" },
};
const byVisibility = (v: string) => TOOLS.filter((t) => t.visibility === v);

async function refusal(p: Awaited<ReturnType<typeof makeProject>>, tool: string, ctx: CallContext) {
	try {
		await call(p.rt, tool, {}, ctx);
	} catch (err) {
		if (err instanceof ToolError) return { code: err.code, message: err.message };
		throw err;
	}
	return undefined;
}

describe("who may call the operator's and the internal entries", async () => {
	const p = await makeProject();

	test("an operator entry refuses agents and the Chair, before it reads its arguments", async () => {
		for (const t of byVisibility("operator")) {
			for (const ctx of [agent, chairContext("chair-1"), systemContext()]) {
				expect({ tool: t.name, who: ctx.principal.kind, refused: await refusal(p, t.name, ctx) }).toEqual({
					tool: t.name,
					who: ctx.principal.kind,
					refused: { code: "permission_denied", message: `${t.name} is for the operator only` },
				});
			}
		}
	});

	test("an internal entry refuses the operator and agents; the Chair and the system may call it", async () => {
		const changes = async () => (await allEvents(p)).filter((e) => e.type !== "call.denied").length;
		const events = await changes();
		for (const t of byVisibility("internal")) {
			for (const ctx of [agent, operatorContext()]) {
				expect((await refusal(p, t.name, ctx))?.code).toBe("permission_denied");
			}
		}
		expect(await changes()).toBe(events); // refusals are recorded (call.denied), nothing else
		await call(p.rt, "run.open", { run_id: "RUN-door" }, operatorContext());
		expect(await call(p.rt, "chair.expire", { run_id: "RUN-door" }, chairContext("chair-1"))).toEqual({
			expired_claims: 0,
			expired_turns: 0,
		});
		expect((await call(p.rt, "test.sweep_interrupted", {}, systemContext())).test_run_ids).toEqual([]);
	});

	test("an agent's did-you-mean never names a tool it may not call", async () => {
		const err = await refusal(p, "resource.revok", agent);
		expect(err?.code).toBe("not_found");
		expect(err?.message).not.toContain("resource.revoke");
		expect((await refusal(p, "resource.revok", operatorContext()))?.message).toContain("resource.revoke");
	});

	test("internal entries take idempotency keys like any mutation", async () => {
		const chair = chairContext("chair-1");
		const args = { run_id: "RUN-door", idempotency_key: "tick-1" };
		const first = await call(p.rt, "run.converge", args, chair);
		const again = await call(p.rt, "run.converge", args, chair);
		expect(again).toEqual(first);
		expect((await call(p.rt, "run.converge", { run_id: "RUN-door" }, chair)).run.ticks).toBe(
			first.run.ticks + 1,
		);
	});
});

describe("over the transports", async () => {
	const p = await makeProject();
	const server = loopbackHttp(p.rt);
	const client = new Client({ name: "one-door-test", version: "1.0.0" });
	await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
	const path = join(tempDir("rt-door-"), "s.sock");
	const socket = await startSocket(callerOf(p.rt), {
		path,
		privateDir: false,
		maxFrameBytes: 1 << 20,
		readDeadlineMs: 5000,
		writeDeadlineMs: 5000,
		maxConnections: 8,
		inflight: new InFlight(),
	});
	afterAll(async () => {
		await client.close();
		await server.close();
		socket.close();
	});

	test("an MCP client sees no operator or internal tool, and calling one is an unknown tool", async () => {
		const { tools } = await client.listTools();
		const listed = new Set(tools.map((t) => t.name));
		for (const t of TOOLS)
			expect({ tool: t.name, listed: listed.has(t.name) }).toEqual({
				tool: t.name,
				listed: t.visibility === "agent",
			});
		for (const name of ["resource.revoke", "chair.assign_tasks"]) {
			const err = await client
				.callTool({ name, arguments: {} })
				.catch((e: { code: number; message: string }) => e);
			expect(err).toMatchObject({ code: -32602 });
			expect((err as { message: string }).message).toContain(`unknown tool '${name}'`);
		}
	});

	test("the legacy socket is the operator's: operator entries work there, internal ones do not", async () => {
		const created = await callSocket(path, "task.create", { title: "t", body_md: "b" }, 5000);
		expect(created.ok).toBe(true);
		const expired = await callSocket(path, "resource.expire", {}, 5000);
		expect(expired).toMatchObject({ ok: true, result: { claims: [] } });
		const internal = await callSocket(path, "chair.assign_tasks", { run_id: "RUN-x" }, 5000);
		expect(internal).toMatchObject({ ok: false, code: "permission_denied" });
	});
});
