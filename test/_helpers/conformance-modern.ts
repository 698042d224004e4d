// The conformance fixtures as 2026-07-28 requests meet them (@modelcontextprotocol/conformance
// 0.2.x): the same tools, resources, prompts and completions as conformance-fixtures.ts serves
// 2025-11-25 sessions, less what needs a server-to-client request (sampling, elicitation, a cut
// stream: that era has none), plus what only this era has: multi-round-trip tools and a prompt that
// answer `input_required`, the stateless scenario's diagnostics, a tool with an `x-mcp-header`
// argument, caching hints on every list and read, and triggers that announce list changes.
// Test-only, like the rest of the fixtures.
import {
	acceptedContent,
	type CallToolResult,
	CLIENT_CAPABILITIES_META_KEY,
	createRequestStateCodec,
	type InputRequests,
	inputRequired,
	ProtocolError,
	type Server,
	type ServerContext,
	type Tool,
} from "@modelcontextprotocol/server";
import type { ModernExtension } from "../../src/transports/extension.ts";
import {
	completions,
	fixtureContents,
	getPrompt,
	PROMPTS,
	RESOURCES,
	TEMPLATES,
} from "./conformance-content.ts";
import { failure, plainResult, sleep, TOOLS, text } from "./conformance-fixtures.ts";

const INVALID_PARAMS = -32602;
/** Lists and contents the fixtures never change: any client may keep them a while. */
const CACHE = { ttlMs: 300_000, cacheScope: "public" as const };

const noArgs = { type: "object" as const, properties: {} };
/** The legacy tools this era serves too: all but those that ask the client mid-call or cut a stream. */
const PUSHING = new Set([
	"test_reconnection",
	"test_sampling",
	"test_elicitation",
	"test_elicitation_sep1034_defaults",
	"test_elicitation_sep1330_enums",
]);

const MODERN_TOOLS: Tool[] = [
	...(TOOLS.filter((t) => !PUSHING.has(t.name)) as Tool[]),
	{
		name: "test_x_mcp_header",
		description: "Mirrors its region argument into the Mcp-Param-Region header (SEP-2243)",
		inputSchema: {
			type: "object",
			properties: {
				region: { type: "string", description: "mirrored into Mcp-Param-Region", "x-mcp-header": "Region" },
				level: { type: "integer", description: "not mirrored" },
			},
		},
	},
	{ name: "test_missing_capability", description: "Needs the client's sampling", inputSchema: noArgs },
	{ name: "test_streaming_elicitation", description: "Answers with result frames only", inputSchema: noArgs },
	{
		name: "test_logging_tool",
		description: "Logs only when the request set a log level",
		inputSchema: noArgs,
	},
	...[
		"elicitation",
		"sampling",
		"list_roots",
		"request_state",
		"multiple_inputs",
		"multi_round",
		"tampered_state",
		"capabilities",
	].map((kind) => ({
		name: `test_input_required_result_${kind}`,
		description: `Multi-round trip (SEP-2322): ${kind.replace("_", " ")}`,
		inputSchema: noArgs,
	})),
	{ name: "test_trigger_tool_change", description: "Announces a tools/list change", inputSchema: noArgs },
	{ name: "test_trigger_prompt_change", description: "Announces a prompts/list change", inputSchema: noArgs },
];

const NAME_FORM = {
	type: "object" as const,
	properties: { name: { type: "string" as const } },
	required: ["name"],
};
const askName = (message = "What is your name?") =>
	inputRequired.elicit({ message, requestedSchema: NAME_FORM });
const confirm = () =>
	inputRequired.elicit({
		message: "Please confirm",
		requestedSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] },
	});
const sample = (prompt: string, maxTokens: number) =>
	inputRequired.createMessage({
		messages: [{ role: "user", content: { type: "text", text: prompt } }],
		maxTokens,
	});

// requestState comes back from the client: sealed here (HMAC, per process), checked before a handler runs.
const states = createRequestStateCodec<Record<string, unknown>>({
	key: crypto.getRandomValues(new Uint8Array(32)),
});

type Args = Record<string, unknown>;
type Answer = CallToolResult | ReturnType<typeof inputRequired>;

async function multiRound(ctx: ServerContext): Promise<Answer> {
	const state = ctx.mcpReq.requestState<Record<string, unknown>>();
	const round = state?.tool === "multi_round" && typeof state.round === "number" ? state.round : 0;
	if (round === 0)
		return inputRequired({
			inputRequests: { step1: askName("Step 1: What is your name?") },
			requestState: await states.mint({ tool: "multi_round", round: 1 }),
		});
	if (round === 1) {
		const name = acceptedContent<{ name: string }>(ctx.mcpReq.inputResponses, "step1")?.name ?? "unknown";
		return inputRequired({
			inputRequests: {
				step2: inputRequired.elicit({
					message: "Step 2: What is your favorite color?",
					requestedSchema: { type: "object", properties: { color: { type: "string" } }, required: ["color"] },
				}),
			},
			requestState: await states.mint({ tool: "multi_round", round: 2, name }),
		});
	}
	const color = acceptedContent<{ color: string }>(ctx.mcpReq.inputResponses, "step2")?.color ?? "unknown";
	return text(`Multi-round complete: ${String(state?.name ?? "unknown")} likes ${color}`);
}

/** Asks only for the kinds of input the request's envelope says the client can give. */
function byCapabilities(ctx: ServerContext): Answer {
	if (ctx.mcpReq.inputResponses !== undefined) return text("Capability-aware input requests fulfilled");
	const envelope = ctx.mcpReq.envelope as Record<string, Record<string, unknown> | undefined> | undefined;
	const declared = envelope?.[CLIENT_CAPABILITIES_META_KEY];
	const inputRequests: InputRequests = {};
	if (declared?.elicitation !== undefined) inputRequests.user_name = askName();
	if (declared?.sampling !== undefined) inputRequests.greeting = sample("Generate a short greeting", 50);
	if (declared?.roots !== undefined) inputRequests.client_roots = inputRequired.listRoots();
	if (Object.keys(inputRequests).length === 0)
		return text("No declared capability supports an input request");
	return inputRequired({ inputRequests });
}

async function call(
	name: string,
	args: Args,
	ctx: ServerContext,
	announce: (list: "tools" | "prompts") => void,
) {
	const responses = ctx.mcpReq.inputResponses;
	switch (name) {
		case "test_tool_with_logging":
			for (const [i, line] of [
				"Tool execution started",
				"Tool processing data",
				"Tool execution completed",
			].entries()) {
				if (i > 0) await sleep(50);
				await ctx.mcpReq.log("info", line);
			}
			return text("Tool with logging executed successfully");
		case "test_tool_with_progress": {
			const token = ctx.mcpReq._meta?.progressToken;
			for (const progress of [0, 50, 100]) {
				if (token !== undefined)
					await ctx.mcpReq.notify({
						method: "notifications/progress",
						params: { progressToken: token, progress, total: 100 },
					});
				if (progress < 100) await sleep(50);
			}
			return text("Tool with progress executed successfully");
		}
		case "test_x_mcp_header":
			return text(`region=${typeof args.region === "string" ? args.region : "<none>"}`);
		case "test_missing_capability":
			// The SDK refuses the input request with −32021 when the envelope declares no sampling.
			if (responses?.llm_answer === undefined)
				return inputRequired({
					inputRequests: { llm_answer: sample("Reply with the single word: pong", 16) },
				});
			return text("sampling round-trip complete");
		case "test_streaming_elicitation":
			return text("stream observed: result frames only, no top-level requests");
		case "test_logging_tool":
			// Delivered only when the request's envelope set a log level.
			await ctx.mcpReq.log("info", "test_logging_tool ran");
			return text("logged through the request-scoped channel");
		case "test_input_required_result_elicitation": {
			const name = acceptedContent<{ name: string }>(responses, "user_name")?.name;
			if (typeof name !== "string") return inputRequired({ inputRequests: { user_name: askName() } });
			return text(`Hello, ${name}!`);
		}
		case "test_input_required_result_sampling": {
			const answer = responses?.capital_question as { content?: { text?: unknown } } | undefined;
			if (answer === undefined)
				return inputRequired({
					inputRequests: { capital_question: sample("What is the capital of France?", 100) },
				});
			return text(`Sampling response: ${String(answer.content?.text ?? JSON.stringify(answer))}`);
		}
		case "test_input_required_result_list_roots": {
			const roots = (responses?.client_roots as { roots?: { uri?: string }[] } | undefined)?.roots;
			if (!Array.isArray(roots))
				return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
			return text(`Client exposed ${roots.length} root(s): ${roots.map((r) => r.uri).join(", ")}`);
		}
		case "test_input_required_result_request_state":
			if (acceptedContent(responses, "confirm") === undefined)
				return inputRequired({
					inputRequests: { confirm: confirm() },
					requestState: await states.mint({ tool: "request_state" }),
				});
			if (ctx.mcpReq.requestState() === undefined)
				throw new ProtocolError(INVALID_PARAMS, "requestState missing: start the call again");
			return text("state-ok: requestState verified and confirmation received");
		case "test_input_required_result_multiple_inputs": {
			const name = acceptedContent<{ name: string }>(responses, "user_name")?.name;
			const greeting = (responses?.greeting as { content?: { text?: unknown } } | undefined)?.content?.text;
			const roots = (responses?.client_roots as { roots?: unknown[] } | undefined)?.roots;
			if (typeof name !== "string" || typeof greeting !== "string" || !Array.isArray(roots))
				return inputRequired({
					inputRequests: {
						user_name: askName(),
						greeting: sample("Generate a greeting", 50),
						client_roots: inputRequired.listRoots(),
					},
					requestState: await states.mint({ tool: "multiple_inputs" }),
				});
			return text(`${greeting} ${name}: ${roots.length} root(s) visible`);
		}
		case "test_input_required_result_multi_round":
			return multiRound(ctx);
		case "test_input_required_result_tampered_state":
			// A tampered state never gets here: the server's requestState check refuses it with −32602.
			if (ctx.mcpReq.requestState() !== undefined && acceptedContent(responses, "confirm") !== undefined)
				return text("integrity-ok: requestState verified");
			return inputRequired({
				inputRequests: { confirm: confirm() },
				requestState: await states.mint({ tool: "tampered_state" }),
			});
		case "test_input_required_result_capabilities":
			return byCapabilities(ctx);
		case "test_trigger_tool_change":
			announce("tools");
			return text("tools/list change announced");
		case "test_trigger_prompt_change":
			announce("prompts");
			return text("prompts/list change announced");
		default:
			return plainResult(name, args) ?? failure("not_found", `no fixture tool '${name}'`);
	}
}

const MRTR_PROMPT = {
	name: "test_input_required_result_prompt",
	description: "Asks for context (multi-round trip) before it answers",
};

function installContent(server: Server): void {
	server.setRequestHandler("resources/list", async () => ({ resources: RESOURCES, ...CACHE }));
	server.setRequestHandler("resources/templates/list", async () => ({
		resourceTemplates: TEMPLATES,
		...CACHE,
	}));
	server.setRequestHandler("resources/read", async (request) => {
		const { uri } = request.params;
		const contents = fixtureContents(uri);
		// SEP-2164: an unknown resource is −32602, naming the URI.
		if (!contents) throw new ProtocolError(INVALID_PARAMS, `resource not found: ${uri}`, { uri });
		return { contents: [contents], ...CACHE };
	});
	server.setRequestHandler("prompts/list", async () => ({ prompts: [...PROMPTS, MRTR_PROMPT], ...CACHE }));
	server.setRequestHandler("prompts/get", async (request, ctx) => {
		const { name, arguments: args } = request.params;
		if (name === MRTR_PROMPT.name) {
			const context = acceptedContent<{ context: string }>(
				ctx.mcpReq.inputResponses,
				"user_context",
			)?.context;
			if (typeof context !== "string")
				return inputRequired({
					inputRequests: {
						user_context: inputRequired.elicit({
							message: "What context should the prompt use?",
							requestedSchema: {
								type: "object",
								properties: { context: { type: "string" } },
								required: ["context"],
							},
						}),
					},
				});
			return {
				messages: [{ role: "user", content: { type: "text", text: `Prompt with context: ${context}` } }],
			};
		}
		return getPrompt(name, args ?? {}, (message) => new ProtocolError(INVALID_PARAMS, message)) as never;
	});
	server.setRequestHandler("completion/complete", async (request) =>
		completions(request.params.ref, request.params.argument.value),
	);
}

export const modernFixtures: ModernExtension = {
	capabilities: {
		tools: { listChanged: true },
		resources: {},
		prompts: { listChanged: true },
		completions: {},
	},
	tools: MODERN_TOOLS,
	requestState: { verify: states.verify },
	install(server, lists) {
		installContent(server);
		return (name, args, ctx) => call(name, args, ctx, (list) => lists.changed(list));
	},
};
