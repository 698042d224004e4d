// A 2025-11-25 session's plain reads are answered with one JSON response, not an event stream
// (src/transports/direct-call.ts): the same answer, the same refusals, the same session rules.
// Changes, waits and calls asking for progress keep their resumable stream.
import { afterAll, expect, test } from "bun:test";
import { capabilityHash, newCapability } from "../../src/sessions/capability.ts";
import { makeProject } from "../_helpers/helpers.ts";
import { loopbackHttp } from "../_helpers/loopback-http.ts";

const p = await makeProject();
const server = loopbackHttp(p.rt, { loopbackAuth: "token", operatorTokens: ["direct-test-token"] });
afterAll(() => server.close());

const mine = (await p.call("task.create", {
	title: "mine",
	body_md: "b",
	assigned_agent_id: "implementer-1",
	readable_paths: ["src/**"],
})) as { task: { id: string } };
const theirs = (await p.call("task.create", {
	title: "theirs",
	body_md: "b",
	assigned_agent_id: "implementer-2",
})) as { task: { id: string } };
const capability = newCapability();
await p.call("session.mint", {
	agent_id: "implementer-1",
	capability_sha256: capabilityHash(capability),
	task_id: mine.task.id,
});

interface Answer {
	status: number;
	type: string;
	message: { id?: unknown; result?: Record<string, unknown>; error?: { code: number } };
}

/** A session for `bearer`; each call says how it was framed and what it answered. */
async function session(bearer: string) {
	const base = {
		"content-type": "application/json",
		accept: "application/json, text/event-stream",
		authorization: `Bearer ${bearer}`,
	};
	const init = await fetch(server.url, {
		method: "POST",
		headers: base,
		body: JSON.stringify({
			jsonrpc: "2.0",
			id: 0,
			method: "initialize",
			params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
		}),
	});
	await init.text();
	const sid = init.headers.get("mcp-session-id") as string;
	const headers = { ...base, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" };
	await fetch(server.url, {
		method: "POST",
		headers,
		body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
	}).then((r) => r.text());
	let id = 1;
	return {
		sid,
		headers,
		async call(
			name: string,
			args: object,
			meta?: object,
			more: Record<string, string> = {},
		): Promise<Answer> {
			const res = await fetch(server.url, {
				method: "POST",
				headers: { ...headers, ...more },
				body: JSON.stringify({
					jsonrpc: "2.0",
					id: id++,
					method: "tools/call",
					params: { name, arguments: args, ...(meta && { _meta: meta }) },
				}),
			});
			const type = res.headers.get("content-type") ?? "";
			const text = await res.text();
			const json = type.includes("text/event-stream")
				? (text
						.split("\n")
						.filter((l) => l.startsWith("data: {"))
						.map((l) => JSON.parse(l.slice(6)))
						.find((m) => "result" in m || "error" in m) ?? {})
				: text === ""
					? {}
					: JSON.parse(text);
			return { status: res.status, type: type.split(";")[0] as string, message: json };
		},
	};
}

test("a plain read is one JSON answer, equal to what its event stream would carry", async () => {
	const s = await session(capability);
	const direct = await s.call("task.get", { task_id: mine.task.id });
	// Asking for progress keeps the stream: the same call, the same answer, framed as before.
	const streamed = await s.call("task.get", { task_id: mine.task.id }, { progressToken: "p" });
	expect(direct.type).toBe("application/json");
	expect(streamed.type).toBe("text/event-stream");
	expect(direct.message.result).toEqual(streamed.message.result as Record<string, unknown>);
	const row = direct.message.result?.structuredContent as { task: { id: string } } | undefined;
	expect(row?.task.id).toBe(mine.task.id);
});

test("changes and waits keep their resumable stream", async () => {
	const s = await session(capability);
	const change = await s.call("resource.claim", {
		resource_type: "file",
		resource_id: "file:src/a.ts",
		claim_type: "write",
		task_id: mine.task.id,
	});
	expect(change.type).toBe("text/event-stream");
	expect(change.message.result?.isError).toBeUndefined();
	const wait = await s.call("message.inbox", { wait_ms: 50 });
	expect(wait.type).toBe("text/event-stream");
	// No wait asked (or none at all): a read.
	expect((await s.call("message.inbox", { wait_ms: 0 })).type).toBe("application/json");
	expect((await s.call("message.inbox", {})).type).toBe("application/json");
});

test("a direct read is refused as any call is: a file it has not claimed, an unknown tool, a foreign session", async () => {
	const s = await session(capability);
	const refused = await s.call("repo.read_file", { path: "AGENTS.ROUNDTABLE.md" });
	expect(refused.type).toBe("application/json");
	expect(refused.message.result?.isError).toBe(true);
	expect(JSON.stringify(refused.message.result)).toContain("permission_denied");
	// An unknown tool is the SDK's to answer, as before (−32602 in the stream).
	const unknown = await s.call("task.gett", {});
	expect(unknown.message.error?.code).toBe(-32602);
	// The operator's session id is no way in for the capability.
	const operator = await session("direct-test-token");
	const foreign = await s.call("task.get", { task_id: theirs.task.id }, undefined, {
		"mcp-session-id": operator.sid,
	});
	expect(foreign.status).toBe(403);
});

test("a client that does not take JSON, or names a version not served, goes to the SDK as before", async () => {
	const s = await session(capability);
	const onlyStreams = await s.call("task.get", { task_id: mine.task.id }, undefined, {
		accept: "text/event-stream",
	});
	expect(onlyStreams.status).toBe(406); // the SDK's answer, as always
	const notJson = await s.call("task.get", { task_id: mine.task.id }, undefined, {
		"content-type": "text/plain",
	});
	expect(notJson.status).toBe(415);
	const odd = await s.call("task.get", { task_id: mine.task.id }, undefined, {
		"mcp-protocol-version": "1999-01-01",
	});
	expect(odd.status).toBe(400);
});
