// SEP-2243's Mcp-Param-* headers against a tool's arguments (src/transports/param-headers.ts): what a
// client that tells a gateway one thing and the tool another is refused for. The owner's answer on
// the wire (400, −32020) is what the 2026-07-28 conformance suite checks (test/e2e/conformance.test.ts).
import { expect, test } from "bun:test";
import { paramHeaderMismatch } from "../../src/transports/param-headers.ts";

const schema = {
	type: "object",
	properties: {
		region: { type: "string", "x-mcp-header": "Region" },
		level: { type: "integer", "x-mcp-header": "Level" },
		plain: { type: "string" },
		where: { type: "object", properties: { zone: { type: "string", "x-mcp-header": "Zone" } } },
		// Not along a `properties` chain: SEP-2243 gives it no header, so none is checked.
		list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } },
	},
};
const b64 = (s: string) => `=?base64?${Buffer.from(s).toString("base64")}?=`;
const verdict = (args: unknown, headers: Record<string, string>) =>
	paramHeaderMismatch(schema, args, new Headers(headers))?.header ?? "agrees";

test("each mirrored argument the body carries needs its header, equal once decoded", () => {
	expect(verdict({ region: "eu" }, { "Mcp-Param-Region": "eu" })).toBe("agrees");
	expect(verdict({ region: "eu" }, {})).toBe("Mcp-Param-Region");
	expect(verdict({ region: "eu" }, { "Mcp-Param-Region": "us" })).toBe("Mcp-Param-Region");
	// Header names are case-insensitive; values are not.
	expect(verdict({ region: "eu" }, { "mcp-param-region": "eu" })).toBe("agrees");
	expect(verdict({ region: "eu" }, { "Mcp-Param-Region": "EU" })).toBe("Mcp-Param-Region");
	expect(verdict({ where: { zone: "a" } }, { "Mcp-Param-Zone": "a" })).toBe("agrees");
	expect(verdict({ where: { zone: "a" } }, {})).toBe("Mcp-Param-Zone");
});

test("an argument the body leaves out (or sends as null) needs no header; unmarked ones never do", () => {
	expect(verdict({}, {})).toBe("agrees");
	expect(verdict({ region: null }, {})).toBe("agrees");
	expect(verdict({}, { "Mcp-Param-Region": "anything" })).toBe("agrees");
	expect(verdict({ plain: "x", list: ["y"] }, {})).toBe("agrees");
	expect(verdict("not an object", {})).toBe("agrees");
});

test("numbers compare as numbers, and only a decimal spelling counts", () => {
	expect(verdict({ level: 42 }, { "Mcp-Param-Level": "42" })).toBe("agrees");
	expect(verdict({ level: 42 }, { "Mcp-Param-Level": "42.0" })).toBe("agrees");
	expect(verdict({ level: 42 }, { "Mcp-Param-Level": "0x2a" })).toBe("Mcp-Param-Level");
	expect(verdict({ level: 0 }, { "Mcp-Param-Level": "" })).toBe("Mcp-Param-Level");
});

test("a Base64 sentinel is decoded strictly; a value without both of its ends is taken as it is", () => {
	expect(verdict({ region: "Grüße, 東京" }, { "Mcp-Param-Region": b64("Grüße, 東京") })).toBe("agrees");
	expect(verdict({ region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVsbG8?=" })).toBe("Mcp-Param-Region");
	expect(verdict({ region: "Hello" }, { "Mcp-Param-Region": "=?base64?SGVs!!!bG8=?=" })).toBe(
		"Mcp-Param-Region",
	);
	// Not UTF-8 once decoded.
	expect(verdict({ region: "x" }, { "Mcp-Param-Region": "=?base64?/w==?=" })).toBe("Mcp-Param-Region");
	expect(verdict({ region: "=?base64?SGVsbG8=" }, { "Mcp-Param-Region": "=?base64?SGVsbG8=" })).toBe(
		"agrees",
	);
	expect(verdict({ region: "SGVsbG8=" }, { "Mcp-Param-Region": "SGVsbG8=" })).toBe("agrees");
});

test("the refusal names the header and what disagreed, bounded", () => {
	const long = "x".repeat(10_000);
	const m = paramHeaderMismatch(schema, { region: "eu" }, new Headers({ "Mcp-Param-Region": long }));
	expect(m?.header).toBe("Mcp-Param-Region");
	expect(m?.message).toContain('body carries region="eu"');
	expect((m?.message.length ?? 0) < 400).toBe(true);
	const missing = paramHeaderMismatch(schema, { region: long }, new Headers());
	expect(missing?.message).toStartWith('the body carries region="xxx');
	expect((missing?.message.length ?? 0) < 400).toBe(true);
});
