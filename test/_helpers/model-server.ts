// A scripted model server on 127.0.0.1 for the real agent CLIs (../shared/reference/real-agents.md):
// Codex's Responses API and Claude Code's Messages API, each answering with the next step of a
// script. The step is picked from the request itself (how many tool results it already carries),
// so a client's retry cannot skip one. Every request body is kept, and every tool result the client
// sent back, for the test to read.

/** One move of the scripted model. */
export type Step =
	/** A Roundtable tool by its MCP name (`agent.brief`); the clients flatten the dots. */
	| { mcp: string; args?: Record<string, unknown> }
	/** Codex: an `apply_patch` in its own patch language. */
	| { patch: string }
	/** Claude Code: one of its own tools (`Read`, `Edit`, `Bash`, …) with its input. */
	| { tool: string; input: Record<string, unknown> }
	/** Codex: a shell command through its `exec_command`. */
	| { shell: string }
	/** The final answer: the turn ends. */
	| { say: string };

export interface ModelServer {
	url: string;
	port: number;
	/** Every request body, in order. */
	requests: Record<string, unknown>[];
	/** The tool results the client sent back, in order (text). */
	results: () => string[];
	stop(): void;
}

const sse = (events: [string, unknown][]) =>
	new Response(events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join(""), {
		headers: { "content-type": "text/event-stream" },
	});

const text = (value: unknown): string =>
	typeof value === "string"
		? value
		: Array.isArray(value)
			? value.map((v) => text((v as { text?: unknown }).text ?? v)).join("")
			: JSON.stringify(value);

const flat = (name: string) => name.replaceAll(".", "_");

/** Codex: one output item per step, as `POST /v1/responses` streams it. */
function responses(step: Step, n: number): Response {
	const id = `call_${n}`;
	const item =
		"mcp" in step
			? {
					type: "function_call",
					namespace: "mcp__roundtable",
					name: flat(step.mcp),
					arguments: JSON.stringify(step.args ?? {}),
					call_id: id,
				}
			: "patch" in step
				? { type: "custom_tool_call", name: "apply_patch", input: step.patch, call_id: id }
				: "shell" in step
					? {
							type: "function_call",
							name: "exec_command",
							arguments: JSON.stringify({ cmd: step.shell }),
							call_id: id,
						}
					: {
							type: "message",
							role: "assistant",
							id: `msg_${n}`,
							content: [{ type: "output_text", text: "say" in step ? step.say : "" }],
						};
	const response = { id: `resp_${n}`, object: "response", status: "in_progress", output: [] };
	const usage = {
		input_tokens: 1,
		input_tokens_details: { cached_tokens: 0 },
		output_tokens: 1,
		output_tokens_details: { reasoning_tokens: 0 },
		total_tokens: 2,
	};
	return sse([
		["response.created", { type: "response.created", response }],
		["response.output_item.added", { type: "response.output_item.added", output_index: 0, item }],
		["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
		[
			"response.completed",
			{ type: "response.completed", response: { ...response, status: "completed", output: [item], usage } },
		],
	]);
}

/** Claude Code: one content block per step, as `POST /v1/messages` streams it. */
function messages(step: Step, n: number): Response {
	const usage = { input_tokens: 1, output_tokens: 1 };
	const use =
		"mcp" in step
			? { name: `mcp__roundtable__${flat(step.mcp)}`, input: step.args ?? {} }
			: "tool" in step
				? { name: step.tool, input: step.input }
				: undefined;
	const block = use
		? [
				{ type: "tool_use", id: `toolu_${n}`, name: use.name, input: {} },
				{ type: "input_json_delta", partial_json: JSON.stringify(use.input) },
			]
		: [
				{ type: "text", text: "" },
				{ type: "text_delta", text: "say" in step ? step.say : "" },
			];
	return sse([
		[
			"message_start",
			{
				type: "message_start",
				message: {
					id: `msg_${n}`,
					type: "message",
					role: "assistant",
					model: "scripted",
					content: [],
					stop_reason: null,
					stop_sequence: null,
					usage,
				},
			},
		],
		["content_block_start", { type: "content_block_start", index: 0, content_block: block[0] }],
		["content_block_delta", { type: "content_block_delta", index: 0, delta: block[1] }],
		["content_block_stop", { type: "content_block_stop", index: 0 }],
		[
			"message_delta",
			{
				type: "message_delta",
				delta: { stop_reason: use ? "tool_use" : "end_turn", stop_sequence: null },
				usage: { output_tokens: 1 },
			},
		],
		["message_stop", { type: "message_stop" }],
	]);
}

type Item = { type?: string; output?: unknown; content?: unknown; role?: string };

/** The tool results a request carries, oldest first. */
function resultsOf(body: Record<string, unknown>): string[] {
	if (Array.isArray(body.input))
		return (body.input as Item[])
			.filter((i) => i.type === "function_call_output" || i.type === "custom_tool_call_output")
			.map((i) => text(i.output));
	const out: string[] = [];
	for (const m of (body.messages ?? []) as Item[])
		if (m.role === "user" && Array.isArray(m.content))
			for (const b of m.content as Item[]) if (b.type === "tool_result") out.push(text(b.content));
	return out;
}

/**
 * How the scripted model misbehaves: the first `fail` main requests get `status` (default 500; a
 * 400 is one no client retries by itself); the first `stall` main requests are never answered; with
 * `hang`, none is.
 */
export interface Faults {
	fail?: number;
	status?: number;
	stall?: number;
	hang?: boolean;
}

/** Serves `script` to whichever client asks; the step after the last is a final answer. */
/**
 * A script for several conversations at once: the step for this request, from what it says (its
 * first message names the agent's binding) and how many tool results it already carries.
 */
export type Script = Step[] | ((request: string, n: number) => Step | undefined);

export function serveModel(script: Script, faults: Faults = {}): ModelServer {
	let failures = faults.fail ?? 0;
	let stalls = faults.stall ?? 0;
	const requests: Record<string, unknown>[] = [];
	let latest: Record<string, unknown> = {};
	const server = Bun.serve({
		hostname: "127.0.0.1",
		port: 0,
		async fetch(req) {
			const url = new URL(req.url);
			const body = (await req.json().catch(() => ({}))) as Record<string, unknown>;
			requests.push({ path: url.pathname, ...body });
			if (url.pathname.endsWith("/responses") || url.pathname.endsWith("/messages")) {
				// Claude Code's side requests (a title, a summary) carry no tools: a plain answer each.
				const main = Array.isArray(body.tools) && (body.tools as unknown[]).length > 0;
				if (!main)
					return url.pathname.endsWith("/messages")
						? messages({ say: "ok" }, 0)
						: responses({ say: "ok" }, 0);
				if (faults.hang) return new Promise<Response>(() => {});
				if (stalls > 0) {
					stalls--;
					return new Promise<Response>(() => {});
				}
				if (failures > 0) {
					failures--;
					const status = faults.status ?? 500;
					const type = status === 400 ? "invalid_request_error" : "server_error";
					return Response.json({ type: "error", error: { type, message: "scripted failure" } }, { status });
				}
				latest = body;
				const n = resultsOf(body).length;
				const step = (Array.isArray(script) ? script[n] : script(JSON.stringify(body), n)) ?? { say: "done" };
				return url.pathname.endsWith("/messages") ? messages(step, n) : responses(step, n);
			}
			return new Response("not found", { status: 404 });
		},
	});
	return {
		url: `http://127.0.0.1:${server.port}`,
		port: server.port as number,
		requests,
		results: () => resultsOf(latest),
		stop: () => server.stop(true),
	};
}

/** Codex's model provider: the scripted server, no retries of its own (a failure ends the run). */
export const codexProvider = (url: string) =>
	[
		'model="gpt-5.5"',
		'model_provider="fake"',
		'model_providers.fake.name="fake"',
		`model_providers.fake.base_url="${url}/v1"`,
		'model_providers.fake.env_key="OPENAI_API_KEY"',
		'model_providers.fake.wire_api="responses"',
		"model_providers.fake.request_max_retries=0",
		"model_providers.fake.stream_max_retries=0",
	].flatMap((c) => ["-c", c]);
