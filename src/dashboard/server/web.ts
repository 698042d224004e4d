// What every dashboard response shares: the security headers (CSP, nosniff, no referrer to another
// origin (same-origin, so a browser's own form post carries the real Origin: with no-referrer
// Chromium sends `Origin: null`, which is refused), no framing,
// no caching unless said), JSON bodies and the `{error:{code,message,details}}` shape tool errors
// take here, the HTTP status each error code maps to, same-origin checks, and a bounded body reader.
import { asToolError, type ErrorCode, ToolError } from "../../errors.ts";
import { readBounded } from "../../transports/body.ts";

export const CSP =
	"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** Sets the headers every dashboard response carries; `cache` defaults to no-store. */
export function secured(res: Response, cache = "no-store"): Response {
	const h = res.headers;
	h.set("content-security-policy", CSP);
	h.set("x-content-type-options", "nosniff");
	h.set("referrer-policy", "same-origin");
	h.set("x-frame-options", "DENY");
	h.set("cross-origin-opener-policy", "same-origin");
	h.set("cross-origin-resource-policy", "same-origin");
	if (!h.has("cache-control")) h.set("cache-control", cache);
	return res;
}

export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
	new Response(JSON.stringify(body), {
		status,
		headers: { "content-type": "application/json; charset=utf-8", ...headers },
	});

export const html = (body: string, status = 200, headers: Record<string, string> = {}) =>
	new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", ...headers } });

/** A refusal or failure in the shape tool errors have on every transport. */
export const apiError = (
	status: number,
	code: ErrorCode,
	message: string,
	details?: Record<string, unknown>,
) => json({ error: details === undefined ? { code, message } : { code, message, details } }, status);

const STATUS: Record<ErrorCode, number> = {
	invalid_argument: 400,
	not_found: 404,
	already_exists: 409,
	conflict: 409,
	failed_precondition: 409,
	permission_denied: 403,
	unauthenticated: 401,
	resource_exhausted: 429,
	deadline_exceeded: 503,
	cancelled: 503,
	internal: 500,
};

/** A request the dashboard refuses itself (its body), with the HTTP status that says why. */
export class RequestError extends ToolError {
	constructor(
		readonly status: number,
		code: ErrorCode,
		message: string,
	) {
		super(code, message);
	}
}

/** A tool's error (or the dashboard's own) as an HTTP response. */
export function toolErrorResponse(err: unknown): Response {
	const e = asToolError(err);
	return json({ error: e.toJSON() }, e instanceof RequestError ? e.status : STATUS[e.code]);
}

/** Whether `origin` (an Origin header) is exactly the origin `own` (scheme://host:port) names. */
export function sameOrigin(origin: string | null, own: string): boolean {
	if (origin === null) return false;
	const a = URL.parse(origin);
	const b = URL.parse(own);
	return a !== null && b !== null && a.origin !== "null" && a.origin === b.origin;
}

/**
 * The request's body as text, at most `limit` bytes, arriving by `deadline` (ms since the epoch);
 * a RequestError otherwise (413, 408, 400).
 */
export async function readBody(req: Request, limit: number, deadline: number): Promise<string> {
	const read = await readBounded(req, limit, deadline);
	if ("text" in read) return read.text;
	if (read.failure === "too_big")
		throw new RequestError(413, "resource_exhausted", `the request body exceeds ${limit} bytes`);
	if (read.failure === "late")
		throw new RequestError(408, "deadline_exceeded", "the request body did not arrive in time");
	throw new RequestError(400, "invalid_argument", "the request body could not be read");
}

/** A JSON object body; an empty body is `{}`. */
export function parseObject(text: string): Record<string, unknown> {
	if (text.trim() === "") return {};
	let body: unknown;
	try {
		body = JSON.parse(text);
	} catch {
		throw new ToolError("invalid_argument", "the request body is not valid JSON");
	}
	if (typeof body !== "object" || body === null || Array.isArray(body))
		throw new ToolError("invalid_argument", "the request body must be a JSON object");
	return body as Record<string, unknown>;
}
