// MCP's 2026-07-28 per-request envelope, as every door reads it (HTTP, the stdio bridge, a session's
// socket): whether a request claims that era, and the headers its own POST carries. Light on
// purpose: the stdio bridge loads it and must start fast.

/** Where a request's `_meta` names its revision. */
export const VERSION_META = "io.modelcontextprotocol/protocolVersion";
/** The first revision without `initialize`; later ones compare greater as dates. */
export const FIRST_MODERN = "2026-07-28";

/** What a message of the new era needs on its own POST: its revision and what it names. */
export interface Modern {
	version: string;
	name?: string;
}

interface Enveloped {
	method?: string;
	params?: { name?: unknown; uri?: unknown; _meta?: Record<string, unknown> };
}

/** The methods whose POST carries an Mcp-Name header, and the parameter it mirrors. */
const NAMED: Record<string, "name" | "uri"> = {
	"tools/call": "name",
	"prompts/get": "name",
	"resources/read": "uri",
};

/** The message's new-era envelope, if it carries one (a revision in its `_meta`). */
export function modernOf(m: Enveloped): Modern | undefined {
	const version = m.params?._meta?.[VERSION_META];
	if (typeof version !== "string" || m.method === undefined) return undefined;
	const field = NAMED[m.method];
	const named = field === undefined ? undefined : m.params?.[field];
	return { version, ...(typeof named === "string" && { name: named }) };
}

/** A request names a 2026-07-28-or-later revision: in its `_meta` envelope, or its version header. */
export function claimsModern(headers: Headers, body: unknown): boolean {
	const header = headers.get("mcp-protocol-version");
	if (header !== null && header >= FIRST_MODERN) return true;
	if (typeof body !== "object" || body === null || Array.isArray(body)) return false;
	const params = (body as { params?: unknown }).params;
	const meta =
		typeof params === "object" && params !== null ? (params as { _meta?: unknown })._meta : undefined;
	return typeof meta === "object" && meta !== null && VERSION_META in meta;
}

/** A header value as the new era carries one: as is when safe, else its Base64 sentinel. */
const headerValue = (value: string) =>
	/^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/.test(value) && !value.startsWith("=?")
		? value
		: `=?base64?${Buffer.from(value, "utf8").toString("base64")}?=`;

/** The headers a new-era message's own POST carries: its revision, its method, what it names. */
export const modernHeaders = (method: string, modern: Modern): Record<string, string> => ({
	"content-type": "application/json",
	accept: "application/json, text/event-stream",
	"mcp-protocol-version": modern.version,
	"mcp-method": method,
	...(modern.name !== undefined && { "mcp-name": headerValue(modern.name) }),
});
