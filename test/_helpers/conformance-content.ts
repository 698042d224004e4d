// The conformance fixtures' resources, resource template, prompts and completions: the data both
// eras serve, and its 2025-11-25 handlers (conformance-fixtures.ts serves them with the fixture
// tools; conformance-modern.ts serves the same data to 2026-07-28 requests).
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
	CompleteRequestSchema,
	GetPromptRequestSchema,
	ListPromptsRequestSchema,
	ListResourcesRequestSchema,
	ListResourceTemplatesRequestSchema,
	ReadResourceRequestSchema,
	SubscribeRequestSchema,
	UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

// A 1×1 red PNG and a one-sample silent WAV (8 kHz, 16-bit mono).
export const PNG =
	"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";
export const WAV = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQIAAAAAAA==";

/** JSON-RPC errors the SDK passes through unchanged (see rpcError in mcp-server.ts). */
const rpcError = (code: number, message: string, data?: unknown) =>
	Object.assign(new Error(message), { code, ...(data !== undefined && { data }) });
const INVALID_PARAMS = -32602;
const RESOURCE_NOT_FOUND = -32002;

export const RESOURCES = [
	{
		uri: "test://static-text",
		name: "static-text",
		description: "A static text resource",
		mimeType: "text/plain",
	},
	{
		uri: "test://static-binary",
		name: "static-binary",
		description: "A static PNG image",
		mimeType: "image/png",
	},
	{
		uri: "test://watched-resource",
		name: "watched-resource",
		description: "A resource to subscribe to",
		mimeType: "text/plain",
	},
];
const TEMPLATE = /^test:\/\/template\/([^/]{1,128})\/data$/;

export const PROMPTS = [
	{ name: "test_simple_prompt", description: "A prompt without arguments" },
	{
		name: "test_prompt_with_arguments",
		description: "A prompt with two arguments",
		arguments: [
			{ name: "arg1", description: "First test argument", required: true },
			{ name: "arg2", description: "Second test argument", required: true },
		],
	},
	{
		name: "test_prompt_with_embedded_resource",
		description: "A prompt that embeds a resource",
		arguments: [{ name: "resourceUri", description: "URI of the resource to embed", required: true }],
	},
	{ name: "test_prompt_with_image", description: "A prompt with an image" },
];
const COMPLETIONS = ["paris", "park", "party", "test", "testing"];

export const TEMPLATES = [
	{
		uriTemplate: "test://template/{id}/data",
		name: "template",
		description: "Data for an id",
		mimeType: "application/json",
	},
];

/** A fixture resource's contents; undefined for a URI that names none. */
export function fixtureContents(uri: string) {
	if (uri === "test://static-text")
		return { uri, mimeType: "text/plain", text: "This is the content of the static text resource." };
	if (uri === "test://static-binary") return { uri, mimeType: "image/png", blob: PNG };
	if (uri === "test://watched-resource")
		return { uri, mimeType: "text/plain", text: "Watched resource content" };
	const id = TEMPLATE.exec(uri)?.[1];
	if (id !== undefined) {
		return {
			uri,
			mimeType: "application/json",
			text: JSON.stringify({ id, templateTest: true, data: `Data for ID: ${id}` }),
		};
	}
	return undefined;
}

function readResource(uri: string) {
	const contents = fixtureContents(uri);
	if (!contents) throw rpcError(RESOURCE_NOT_FOUND, `resource not found: ${uri}`, { uri });
	return contents;
}

/** The values completing `value` for the prompt argument `ref` names. */
export function completions(ref: { type: string; name?: string }, value: string) {
	const known = ref.type === "ref/prompt" && ref.name === "test_prompt_with_arguments";
	const values = known ? COMPLETIONS.filter((v) => v.startsWith(value)) : [];
	return { completion: { values, total: values.length, hasMore: false } };
}

/** A fixture prompt's messages; `invalid` makes the error for a missing argument or prompt. */
export function getPrompt(
	name: string,
	args: Record<string, string>,
	invalid: (message: string) => Error = (message) => rpcError(INVALID_PARAMS, message),
) {
	const required = (key: string) => {
		const value = args[key];
		if (value === undefined) throw invalid(`prompt '${name}' needs the argument '${key}'`);
		return value;
	};
	const user = (content: Record<string, unknown>) => ({ role: "user" as const, content });
	switch (name) {
		case "test_simple_prompt":
			return { messages: [user({ type: "text", text: "This is a simple prompt for testing." })] };
		case "test_prompt_with_arguments":
			return {
				messages: [
					user({
						type: "text",
						text: `Prompt with arguments: arg1='${required("arg1")}', arg2='${required("arg2")}'`,
					}),
				],
			};
		case "test_prompt_with_embedded_resource":
			return {
				messages: [
					user({
						type: "resource",
						resource: {
							uri: required("resourceUri"),
							mimeType: "text/plain",
							text: "Embedded resource content for testing.",
						},
					}),
					user({ type: "text", text: "Please process the embedded resource above." }),
				],
			};
		case "test_prompt_with_image":
			return {
				messages: [
					user({ type: "image", data: PNG, mimeType: "image/png" }),
					user({ type: "text", text: "Please analyze the image above." }),
				],
			};
		default:
			throw invalid(`unknown prompt '${name}'`);
	}
}

/** Answers resources/*, prompts/* and completion/complete on one session's server. */
export function installContent(server: Server): void {
	// Per session, and only to listed resources, so the set stays small.
	const subscriptions = new Set<string>();
	server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: RESOURCES }));
	server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
		resourceTemplates: TEMPLATES,
	}));
	server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
		contents: [readResource(request.params.uri)],
	}));
	server.setRequestHandler(SubscribeRequestSchema, async (request) => {
		const { uri } = request.params;
		if (!RESOURCES.some((r) => r.uri === uri))
			throw rpcError(RESOURCE_NOT_FOUND, `no resource ${uri} to subscribe to`, { uri });
		subscriptions.add(request.params.uri);
		return {};
	});
	server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
		subscriptions.delete(request.params.uri);
		return {};
	});
	server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
	server.setRequestHandler(GetPromptRequestSchema, async (request) =>
		getPrompt(request.params.name, request.params.arguments ?? {}),
	);
	server.setRequestHandler(CompleteRequestSchema, async (request) =>
		completions(request.params.ref, request.params.argument.value),
	);
}
