// JSON-RPC frames for the HTTP and stdio runs: valid MCP messages to start from (mostly tools/call
// of the valid calls), and an oracle saying, from a frame's bytes alone, what answer it is owed.
import {
	type Json,
	MUTATIONS,
	type Mutation,
	mutate,
	type Rng,
	randomFrame,
	randomString,
	randomValue,
	utf8,
	validCall,
} from "./gen.ts";

export const PROTOCOL = "2025-11-25";

/** A valid client message with id `id` (a request), or without one (a notification or a response). */
export function rpcMessage(rng: Rng, id: string | number): Record<string, Json> {
	const r = rng.int(100);
	const base = { jsonrpc: "2.0", id };
	if (r < 60) {
		const call = validCall(rng);
		return { ...base, method: "tools/call", params: { name: call.tool, arguments: call.args } };
	}
	if (r < 64) return { ...base, method: "ping" };
	if (r < 67)
		return { ...base, method: "tools/list", params: rng.chance(0.5) ? {} : { cursor: randomString(rng, 8) } };
	if (r < 70) return { ...base, method: "resources/list" };
	if (r < 72) return { ...base, method: "prompts/list" };
	if (r < 74)
		return {
			...base,
			method: "resources/read",
			params: { uri: rng.pick(["roundtable://state", "file:///etc/passwd", "x"]) },
		};
	if (r < 76)
		return {
			...base,
			method: "completion/complete",
			params: { ref: { type: "ref/prompt", name: "x" }, argument: { name: "a", value: "b" } },
		};
	if (r < 78)
		return {
			...base,
			method: "logging/setLevel",
			params: { level: rng.pick(["debug", "info", "nonsense"]) },
		};
	if (r < 80)
		return {
			...base,
			method: "initialize",
			params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "fuzz", version: "1" } },
		};
	if (r < 84) return { ...base, method: randomString(rng, 24), params: randomValue(rng, 2) };
	if (r < 88)
		return {
			...base,
			method: "tools/call",
			params: { name: validCall(rng).tool, arguments: {}, _meta: { progressToken: id } },
		};
	if (r < 92)
		return {
			jsonrpc: "2.0",
			method: "notifications/cancelled",
			params: { requestId: rng.int(1000), reason: "fuzz" },
		};
	if (r < 95)
		return { jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: 1, progress: 1 } };
	if (r < 97) return { jsonrpc: "2.0", method: "notifications/initialized" };
	return { jsonrpc: "2.0", id, result: {} };
}

const KNOWN = new Set([
	"tools/call",
	"ping",
	"tools/list",
	"resources/list",
	"prompts/list",
	"resources/read",
	"completion/complete",
	"logging/setLevel",
	"initialize",
	"notifications/cancelled",
	"notifications/progress",
	"notifications/initialized",
]);

export interface RpcFrame {
	label: string;
	bytes: Uint8Array;
}

/** The `i`th generated JSON-RPC frame: valid, mutated, random, or with a long name or key. */
export function rpcFrame(rng: Rng, id: string | number): RpcFrame {
	const r = rng.int(100);
	if (r < 50) {
		const kind: Mutation = rng.pick(MUTATIONS);
		return { label: `mutated:${kind}`, bytes: mutate(rng, rpcMessage(rng, id), kind) };
	}
	if (r < 72) {
		const m = rpcMessage(rng, id);
		const method =
			typeof m.method !== "string" ? "response" : KNOWN.has(m.method) ? m.method : "random-method";
		return { label: `valid:${method}`, bytes: utf8(JSON.stringify(m)) };
	}
	if (r < 88) return { label: "random:frame", bytes: randomFrame(rng) };
	if (r < 96) {
		const m = {
			jsonrpc: "2.0",
			id,
			method: "tools/call",
			params: { name: randomString(rng, 60), arguments: randomValue(rng) },
		};
		return { label: "random:call", bytes: utf8(JSON.stringify(m)) };
	}
	const n = rng.pick([1024, 4096, 16 * 1024, 64 * 1024]);
	const params = rng.chance(0.5)
		? { name: "x".repeat(n), arguments: {} }
		: { name: "task.list", arguments: { ["k".repeat(n)]: 1 } };
	return {
		label: `long:${n}`,
		bytes: utf8(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params })),
	};
}

/** What a frame is owed, by JSON-RPC 2.0: an answer with its id, an error, or nothing. */
export type Owed =
	| { kind: "parse-error" }
	| { kind: "invalid"; id: string | null }
	| { kind: "request"; id: string }
	| { kind: "none" };

const STRICT = new TextDecoder("utf-8", { fatal: true });
const LENIENT = new TextDecoder("utf-8");

/** An id as the key answers are matched by: the JSON text of the id the server can read. */
export const idKey = (id: unknown): string | null =>
	typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? JSON.stringify(id) : null;

export function owed(bytes: Uint8Array, strict: boolean): Owed {
	let text: string;
	try {
		text = strict ? STRICT.decode(bytes) : LENIENT.decode(bytes);
	} catch {
		return { kind: "parse-error" };
	}
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return { kind: "parse-error" };
	}
	if (typeof value !== "object" || value === null || Array.isArray(value))
		return { kind: "invalid", id: null };
	const m = value as Record<string, unknown>;
	const id = idKey(m.id);
	if (m.jsonrpc !== "2.0") return { kind: "invalid", id };
	if (typeof m.method === "string") {
		if (!("id" in m) || m.id === undefined) return { kind: "none" };
		if (id === null) return { kind: "invalid", id: null };
		return { kind: "request", id };
	}
	if (id !== null && ("result" in m || "error" in m)) return { kind: "none" }; // a response to the server
	return { kind: "invalid", id };
}

/** Why a server message is not a well-formed JSON-RPC 2.0 message (undefined when it is one). */
export function messageProblem(m: unknown): string | undefined {
	if (typeof m !== "object" || m === null || Array.isArray(m)) return "not a message object";
	const r = m as Record<string, unknown>;
	if (r.jsonrpc !== "2.0") return "jsonrpc is not 2.0";
	if (typeof r.method === "string") return undefined; // a notification or request from the server
	const hasResult = "result" in r;
	const hasError = "error" in r;
	if (hasResult === hasError) return "neither a result nor an error (or both)";
	if (!(r.id === null || typeof r.id === "string" || typeof r.id === "number")) return "bad id";
	if (hasError) {
		const e = r.error as Record<string, unknown> | null;
		if (typeof e !== "object" || e === null) return "error is not an object";
		if (!Number.isInteger(e.code)) return "error code is not an integer";
		if (typeof e.message !== "string") return "error message is not a string";
	} else if (typeof r.result !== "object" || r.result === null || Array.isArray(r.result))
		return "result is not an object";
	return undefined;
}

/** An error message that echoes too much: error frames longer than this fail. */
export const MAX_ERROR_CHARS = 16 * 1024;
