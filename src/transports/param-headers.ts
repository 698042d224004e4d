// SEP-2243's custom headers (2026-07-28, HTTP only): a tool may mark primitive arguments with
// `x-mcp-header: Name` in its input schema, and a client then mirrors each one it sends into an
// `Mcp-Param-Name` header, so that gateways can route on it without reading the body. A server must
// refuse a request whose headers and body disagree (400, −32020), or an intermediary could be told
// one thing and the tool another. Roundtable's own tools declare none; a tool served beside them may.

/** The JSON-RPC code of a header that disagrees with the body. */
export const HEADER_MISMATCH = -32020;

interface Declaration {
	path: string[];
	header: string;
	numeric: boolean;
}

type Schema = { properties?: Record<string, Schema>; type?: unknown; "x-mcp-header"?: unknown };

const declared = new WeakMap<object, Declaration[]>();

/** The mirrored arguments a schema declares: only along `properties` chains, as SEP-2243 allows. */
function declarationsOf(schema: Schema): Declaration[] {
	let found = declared.get(schema);
	if (found) return found;
	found = [];
	const visit = (node: Schema, path: string[]) => {
		const header = node["x-mcp-header"];
		if (path.length > 0 && typeof header === "string" && header !== "")
			found?.push({ path, header, numeric: node.type === "integer" || node.type === "number" });
		for (const [key, child] of Object.entries(node.properties ?? {}))
			if (typeof child === "object" && child !== null) visit(child, [...path, key]);
	};
	visit(schema, []);
	declared.set(schema, found);
	return found;
}

const DECIMAL = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;
const SENTINEL = /^=\?base64\?([A-Za-z0-9+/]*={0,2})\?=$/;

/**
 * A header's value as the client meant it: its Base64 sentinel (`=?base64?…?=`, both ends) decoded,
 * strictly (padding and alphabet); any other value as it is. Undefined for a malformed sentinel.
 */
function decoded(value: string): string | undefined {
	if (!value.startsWith("=?base64?") || !value.endsWith("?=")) return value;
	const b64 = SENTINEL.exec(value)?.[1];
	if (b64 === undefined || b64.length % 4 !== 0) return undefined;
	try {
		const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
		return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
	} catch {
		return undefined;
	}
}

/**
 * Why `headers` disagree with the arguments a call gives a tool of input schema `schema`, or
 * undefined when they agree: each mirrored argument the body carries needs its header, decoding to
 * the same value (numbers compared as numbers); an argument the body leaves out needs none.
 */
export function paramHeaderMismatch(
	schema: object,
	args: unknown,
	headers: Headers,
): { header: string; message: string } | undefined {
	for (const d of declarationsOf(schema as Schema)) {
		let value: unknown = args;
		for (const key of d.path)
			value =
				typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
		if (!["string", "number", "boolean"].includes(typeof value)) continue;
		const header = `Mcp-Param-${d.header}`;
		const given = headers.get(header);
		const where = `${d.path.join(".")}=${JSON.stringify(value).slice(0, 200)}`;
		if (given === null) return { header, message: `the body carries ${where} but no ${header} header` };
		const meant = decoded(given);
		if (meant === undefined)
			return { header, message: `the ${header} header is not valid Base64 of UTF-8 text` };
		const same =
			d.numeric && typeof value === "number"
				? DECIMAL.test(meant) && Number(meant) === value
				: meant === String(value);
		if (!same)
			return {
				header,
				message: `the ${header} header says ${JSON.stringify(meant.slice(0, 200))} but the body carries ${where}`,
			};
	}
	return undefined;
}
