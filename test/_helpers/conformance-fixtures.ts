// The fixtures the MCP conformance suite (@modelcontextprotocol/conformance 0.1.16) calls by name:
// tools, resources, prompts, completions and logging, as its scenarios describe them. Test-only:
// only the tests' own owner entry (conformance-owner.ts) serves them, so none of it is in the
// registry, the docs, the generated assets, the product's HTTP path or a normal tools/list.
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
	type CallToolResult,
	CreateMessageResultSchema,
	ElicitResultSchema,
	type LoggingLevel,
	type ServerNotification,
	type ServerRequest,
	SetLevelRequestSchema,
	type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import type { LegacyExtension } from "../../src/transports/extension.ts";
import { installContent, PNG, WAV } from "./conformance-content.ts";

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;
type Args = Record<string, unknown>;

const noArgs = { type: "object" as const, properties: {}, additionalProperties: false };
const oneString = (name: string, description: string) => ({
	type: "object" as const,
	properties: { [name]: { type: "string", description } },
	required: [name],
});

export const TOOLS: Tool[] = [
	{ name: "test_simple_text", description: "Returns one text block", inputSchema: noArgs },
	{ name: "test_image_content", description: "Returns a PNG image", inputSchema: noArgs },
	{ name: "test_audio_content", description: "Returns a WAV clip", inputSchema: noArgs },
	{ name: "test_embedded_resource", description: "Returns an embedded text resource", inputSchema: noArgs },
	{
		name: "test_multiple_content_types",
		description: "Returns text, an image and a resource",
		inputSchema: noArgs,
	},
	{ name: "test_tool_with_logging", description: "Logs three messages while it runs", inputSchema: noArgs },
	{
		name: "test_tool_with_progress",
		description: "Reports progress 0, 50 and 100 of 100",
		inputSchema: noArgs,
	},
	{ name: "test_error_handling", description: "Always fails", inputSchema: noArgs },
	{
		name: "test_reconnection",
		description: "Closes its event stream mid-call (SEP-1699)",
		inputSchema: noArgs,
	},
	{
		name: "test_sampling",
		description: "Asks the client's model (sampling/createMessage)",
		inputSchema: oneString("prompt", "The prompt to send to the LLM"),
	},
	{
		name: "test_elicitation",
		description: "Asks the user (elicitation/create)",
		inputSchema: oneString("message", "The message to show the user"),
	},
	{
		name: "test_elicitation_sep1034_defaults",
		description: "Elicits with defaults (SEP-1034)",
		inputSchema: noArgs,
	},
	{
		name: "test_elicitation_sep1330_enums",
		description: "Elicits with every enum form (SEP-1330)",
		inputSchema: noArgs,
	},
	{
		name: "json_schema_2020_12_tool",
		description: "Tool with JSON Schema 2020-12 features (SEP-1613, SEP-2106)",
		inputSchema: {
			$schema: "https://json-schema.org/draft/2020-12/schema",
			type: "object",
			$defs: {
				address: {
					$anchor: "addressDef",
					type: "object",
					properties: { street: { type: "string" }, city: { type: "string" } },
				},
			},
			properties: {
				name: { type: "string" },
				address: { $ref: "#/$defs/address" },
				contactMethod: { type: "string", enum: ["phone", "email"] },
				phone: { type: "string" },
				email: { type: "string" },
			},
			allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
			if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
			// biome-ignore lint/suspicious/noThenProperty: `then` is a JSON Schema 2020-12 keyword
			then: { required: ["phone"] },
			else: { required: ["email"] },
			additionalProperties: false,
		},
	},
];

export const text = (t: string): CallToolResult => ({ content: [{ type: "text", text: t }] });
/** A failed call, shaped like every Roundtable tool error. */
export const failure = (code: string, message: string): CallToolResult => ({
	isError: true,
	content: [{ type: "text", text: JSON.stringify({ error: { code, message } }) }],
});
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The fixture tools whose answer is the same in both eras and needs nothing of the client. */
export function plainResult(name: string, args: Args): CallToolResult | undefined {
	switch (name) {
		case "test_simple_text":
			return text("This is a simple text response for testing.");
		case "test_image_content":
			return { content: [{ type: "image", data: PNG, mimeType: "image/png" }] };
		case "test_audio_content":
			return { content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }] };
		case "test_embedded_resource":
			return {
				content: [
					{
						type: "resource",
						resource: {
							uri: "test://embedded-resource",
							mimeType: "text/plain",
							text: "This is an embedded resource content.",
						},
					},
				],
			};
		case "test_multiple_content_types":
			return {
				content: [
					{ type: "text", text: "Multiple content types test:" },
					{ type: "image", data: PNG, mimeType: "image/png" },
					{
						type: "resource",
						resource: {
							uri: "test://mixed-content-resource",
							mimeType: "application/json",
							text: JSON.stringify({ test: "data", value: 123 }),
						},
					},
				],
			};
		case "test_error_handling":
			return failure("internal", "This tool intentionally returns an error for testing");
		case "json_schema_2020_12_tool":
			return text(`Received: ${JSON.stringify(args)}`);
		default:
			return undefined;
	}
}

const ELICIT_SEP1034 = {
	type: "object" as const,
	properties: {
		name: { type: "string" as const, description: "User name", default: "John Doe" },
		age: { type: "integer" as const, description: "User age", default: 30 },
		score: { type: "number" as const, description: "User score", default: 95.5 },
		status: {
			type: "string" as const,
			description: "User status",
			enum: ["active", "inactive", "pending"],
			default: "active",
		},
		verified: { type: "boolean" as const, description: "Verification status", default: true },
	},
};

const ELICIT_SEP1330 = {
	type: "object" as const,
	properties: {
		untitledSingle: { type: "string" as const, enum: ["option1", "option2", "option3"] },
		titledSingle: {
			type: "string" as const,
			oneOf: [
				{ const: "value1", title: "First Option" },
				{ const: "value2", title: "Second Option" },
				{ const: "value3", title: "Third Option" },
			],
		},
		legacyEnum: {
			type: "string" as const,
			enum: ["opt1", "opt2", "opt3"],
			enumNames: ["Option One", "Option Two", "Option Three"],
		},
		untitledMulti: {
			type: "array" as const,
			items: { type: "string" as const, enum: ["option1", "option2", "option3"] },
		},
		titledMulti: {
			type: "array" as const,
			items: {
				anyOf: [
					{ const: "value1", title: "First Choice" },
					{ const: "value2", title: "Second Choice" },
					{ const: "value3", title: "Third Choice" },
				],
			},
		},
	},
};

const LEVELS: LoggingLevel[] = [
	"debug",
	"info",
	"notice",
	"warning",
	"error",
	"critical",
	"alert",
	"emergency",
];

export const legacyFixtures: LegacyExtension = {
	// Its tools list is said to change when a 2026-07-28 request triggers it (conformance-modern.ts).
	capabilities: {
		tools: { listChanged: true },
		resources: { subscribe: true },
		prompts: {},
		logging: {},
		completions: {},
	},
	tools: TOOLS,
	install(server: Server) {
		// Per session, like the server: the lowest level the client asked to see.
		let minimum = 0;
		server.setRequestHandler(SetLevelRequestSchema, async (request) => {
			minimum = LEVELS.indexOf(request.params.level);
			return {};
		});
		installContent(server);

		const log = (extra: Extra, level: LoggingLevel, data: string) =>
			LEVELS.indexOf(level) < minimum
				? Promise.resolve()
				: extra.sendNotification({ method: "notifications/message", params: { level, data } });
		const progress = (extra: Extra, value: number) => {
			const token = extra._meta?.progressToken;
			if (token === undefined) return Promise.resolve();
			return extra.sendNotification({
				method: "notifications/progress",
				params: { progressToken: token, progress: value, total: 100 },
			});
		};
		const stringArg = (args: Args, key: string) =>
			typeof args[key] === "string" ? (args[key] as string) : undefined;

		const call = async (name: string, args: Args, extra: Extra): Promise<CallToolResult> => {
			const client = server.getClientCapabilities() ?? {};
			switch (name) {
				case "test_tool_with_logging":
					// Spaced out, so a client sees them arrive while the call runs.
					await log(extra, "info", "Tool execution started");
					await sleep(50);
					await log(extra, "info", "Tool processing data");
					await sleep(50);
					await log(extra, "info", "Tool execution completed");
					return text("Tool with logging executed successfully");
				case "test_tool_with_progress":
					for (const value of [0, 50, 100]) {
						await progress(extra, value);
						if (value < 100) await sleep(50);
					}
					return text("Tool with progress executed successfully");
				case "test_reconnection":
					// The client reconnects with Last-Event-ID and gets the result from the event store.
					extra.closeSSEStream?.();
					await sleep(100);
					return text("Reconnection test completed successfully.");
				case "test_sampling": {
					const prompt = stringArg(args, "prompt");
					if (prompt === undefined)
						return failure("invalid_argument", "test_sampling needs the string argument 'prompt'");
					if (!client.sampling) return failure("failed_precondition", "the client does not offer sampling");
					const answer = await extra.sendRequest(
						{
							method: "sampling/createMessage",
							params: {
								messages: [{ role: "user", content: { type: "text", text: prompt } }],
								maxTokens: 100,
							},
						},
						CreateMessageResultSchema,
					);
					const reply = answer.content.type === "text" ? answer.content.text : `(${answer.content.type})`;
					return text(`LLM response: ${reply}`);
				}
				case "test_elicitation": {
					const message = stringArg(args, "message");
					if (message === undefined)
						return failure("invalid_argument", "test_elicitation needs the string argument 'message'");
					return elicit(extra, client, message, {
						type: "object",
						properties: {
							username: { type: "string", description: "User's response" },
							email: { type: "string", description: "User's email address" },
						},
						required: ["username", "email"],
					});
				}
				case "test_elicitation_sep1034_defaults":
					return elicit(
						extra,
						client,
						"Please review and update the form fields with defaults",
						ELICIT_SEP1034,
					);
				case "test_elicitation_sep1330_enums":
					return elicit(extra, client, "Please pick from the options", ELICIT_SEP1330);
				default:
					return plainResult(name, args) ?? failure("not_found", `no fixture tool '${name}'`);
			}
		};
		// A client that refuses a sampling or elicitation request makes the call fail, as a tool error.
		return (name, args, extra) =>
			call(name, args, extra).catch((err: Error) => failure("failed_precondition", err.message));
	},
};

async function elicit(
	extra: Extra,
	client: { elicitation?: unknown },
	message: string,
	requestedSchema: Record<string, unknown>,
): Promise<CallToolResult> {
	if (!client.elicitation) return failure("failed_precondition", "the client does not offer elicitation");
	const answer = await extra.sendRequest(
		{ method: "elicitation/create", params: { mode: "form", message, requestedSchema } as never },
		ElicitResultSchema,
	);
	return text(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
}
