// The stdio bridge's framing, as units: readLines (newline-delimited frames with a size cap and
// bounded memory) and parseFrame (a frame → a JSON-RPC message, or the error frame to answer with).
import { describe, expect, test } from "bun:test";
import { type Frame, readLines } from "../../src/transports/lines.ts";
import { parseFrame } from "../../src/transports/stdio.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();

/** A stream that yields exactly these chunks, in order. */
function streamOf(...chunks: (string | Uint8Array)[]): ReadableStream<Uint8Array> {
	const queue = chunks.map((c) => (typeof c === "string" ? enc.encode(c) : c));
	return new ReadableStream<Uint8Array>({
		pull(controller) {
			const next = queue.shift();
			if (next === undefined) controller.close();
			else controller.enqueue(next);
		},
	});
}

/** Every frame read from the chunks, lines decoded to strings, oversized ones as "<oversized>". */
async function framesOf(maxBytes: number, ...chunks: (string | Uint8Array)[]): Promise<string[]> {
	const out: string[] = [];
	for await (const frame of readLines(streamOf(...chunks), maxBytes)) {
		out.push("oversized" in frame ? "<oversized>" : dec.decode(frame.line));
	}
	return out;
}

describe("readLines", () => {
	test("one line per chunk, each ending in a newline", async () => {
		expect(await framesOf(100, "alpha\n", "beta\n")).toEqual(["alpha", "beta"]);
	});

	test("a line split across several chunks is put back together", async () => {
		expect(await framesOf(100, '{"a":', '1,"b"', ":2}\nnext\n")).toEqual(['{"a":1,"b":2}', "next"]);
	});

	test("a line split byte by byte is put back together", async () => {
		const chunks = [..."hello\nworld\n"];
		expect(await framesOf(100, ...chunks)).toEqual(["hello", "world"]);
	});

	test("several lines in one chunk are all read, in order", async () => {
		expect(await framesOf(100, "one\ntwo\nthree\n")).toEqual(["one", "two", "three"]);
	});

	test("a chunk may end one line and start the next", async () => {
		expect(await framesOf(100, "one\ntw", "o\nthr", "ee\n")).toEqual(["one", "two", "three"]);
	});

	test("the last line without a newline is still read", async () => {
		expect(await framesOf(100, "one\n", "last")).toEqual(["one", "last"]);
	});

	test("empty lines come through as empty frames and do not merge their neighbours", async () => {
		expect(await framesOf(100, "a\n\n", "\nb\n")).toEqual(["a", "", "", "b"]);
	});

	test("a stream with nothing in it yields nothing; a trailing newline adds no frame", async () => {
		expect(await framesOf(100)).toEqual([]);
		expect(await framesOf(100, "only\n")).toEqual(["only"]);
	});

	test("a line exactly at the cap is read; one byte more is oversized", async () => {
		expect(await framesOf(5, "12345\n")).toEqual(["12345"]);
		expect(await framesOf(5, "123456\n")).toEqual(["<oversized>"]);
		expect(await framesOf(5, "123", "45\n")).toEqual(["12345"]);
		expect(await framesOf(5, "123", "456\n")).toEqual(["<oversized>"]);
	});

	test("an oversized line is reported once and the next line is still read", async () => {
		expect(await framesOf(8, "short\n", "x".repeat(20), "\nafter\n")).toEqual([
			"short",
			"<oversized>",
			"after",
		]);
	});

	test("an oversized line spread over many chunks is reported once", async () => {
		const chunks = Array.from({ length: 50 }, () => "xxxxxxxxxx");
		expect(await framesOf(16, "a\n", ...chunks, "\nb\n")).toEqual(["a", "<oversized>", "b"]);
	});

	test("an oversized line that ends in the same chunk as the next line starts", async () => {
		expect(await framesOf(4, "toolongline\nok\n")).toEqual(["<oversized>", "ok"]);
	});

	test("an oversized last line without a newline is reported once", async () => {
		expect(await framesOf(8, "ok\n", "y".repeat(30))).toEqual(["ok", "<oversized>"]);
		expect(await framesOf(8, "ok\n", "yyyyyy", "yyyyyy")).toEqual(["ok", "<oversized>"]);
	});

	test("two oversized lines in a row are two reports", async () => {
		expect(await framesOf(4, "aaaaaaaa\nbbbbbbbb\nc\n")).toEqual(["<oversized>", "<oversized>", "c"]);
	});

	test("lines are raw bytes: invalid UTF-8 passes through unchanged", async () => {
		const bytes = new Uint8Array([0x61, 0xff, 0xfe, 0x62, 0x0a]);
		const frames: Frame[] = [];
		for await (const f of readLines(streamOf(bytes), 100)) frames.push(f);
		expect(frames).toHaveLength(1);
		const frame = frames[0] as Frame;
		expect("line" in frame && [...frame.line]).toEqual([0x61, 0xff, 0xfe, 0x62]);
	});

	test("a multi-byte character split across chunks arrives whole", async () => {
		const bytes = enc.encode("é€\n");
		expect(await framesOf(100, bytes.subarray(0, 1), bytes.subarray(1, 3), bytes.subarray(3))).toEqual([
			"é€",
		]);
	});
});

type ErrorFrame = { jsonrpc: string; id: string | number | null; error: { code: number; message: string } };

/** parseFrame on a line; the error frame it answers with, parsed, or fails when it accepts the line. */
function rejected(line: string | Uint8Array): ErrorFrame {
	const out = parseFrame({ line: typeof line === "string" ? enc.encode(line) : line });
	if (typeof out !== "string") throw new Error(`parseFrame accepted ${JSON.stringify(out)}`);
	return JSON.parse(out) as ErrorFrame;
}

function accepted(line: string): unknown {
	const out = parseFrame({ line: enc.encode(line) });
	if (typeof out === "string") throw new Error(`parseFrame rejected the line: ${out}`);
	return out;
}

describe("parseFrame", () => {
	test("a request, a notification and a response are accepted as they are", () => {
		const request = { jsonrpc: "2.0", id: 1, method: "tools/list", params: {} };
		expect(accepted(JSON.stringify(request))).toEqual(request);
		const notification = { jsonrpc: "2.0", method: "notifications/initialized" };
		expect(accepted(JSON.stringify(notification))).toEqual(notification);
		const withStringId = { jsonrpc: "2.0", id: "abc", method: "ping" };
		expect(accepted(JSON.stringify(withStringId))).toEqual(withStringId);
		const response = { jsonrpc: "2.0", id: 7, result: {} };
		expect(accepted(JSON.stringify(response))).toEqual(response);
		const errorResponse = { jsonrpc: "2.0", id: "x", error: { code: -1, message: "no" } };
		expect(accepted(JSON.stringify(errorResponse))).toEqual(errorResponse);
	});

	test("an oversized frame is a parse error (-32700) with id null", () => {
		const out = parseFrame({ oversized: true });
		expect(typeof out).toBe("string");
		const frame = JSON.parse(out as string) as ErrorFrame;
		expect(frame).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
		expect(frame.error.message).toContain("size limit");
	});

	test("invalid UTF-8 is a parse error (-32700), even when the rest is valid JSON", () => {
		const before = enc.encode('{"jsonrpc":"2.0","id":3,"method":"ping","params":{"x":"');
		const after = enc.encode('"}}');
		const line = new Uint8Array([...before, 0xff, 0xfe, ...after]);
		expect(rejected(line)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
		expect(rejected(line).error.message).toContain("UTF-8");
		// A lone continuation byte and a truncated sequence too.
		expect(rejected(new Uint8Array([0x22, 0x80, 0x22])).error.code).toBe(-32700);
		expect(rejected(new Uint8Array([0x22, 0xe2, 0x82, 0x22])).error.code).toBe(-32700);
	});

	test("a line that is not JSON is a parse error (-32700) with id null", () => {
		for (const line of ["not json", "{", '{"jsonrpc":"2.0","id":1,', "{'a':1}"]) {
			const frame = rejected(line);
			expect(frame).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } });
			expect(frame.error.message).toContain("JSON");
		}
	});

	test("a JSON value that is not one message object is an invalid request (-32600)", () => {
		for (const line of [
			"[1,2]",
			"[]",
			'[{"jsonrpc":"2.0","id":1,"method":"ping"}]',
			"1",
			'"s"',
			"null",
			"true",
		]) {
			expect(rejected(line)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } });
		}
	});

	test("a message without jsonrpc 2.0 is an invalid request that keeps its id", () => {
		expect(rejected('{"id":4,"method":"ping"}')).toMatchObject({ id: 4, error: { code: -32600 } });
		expect(rejected('{"jsonrpc":"1.0","id":"a","method":"ping"}')).toMatchObject({
			id: "a",
			error: { code: -32600 },
		});
	});

	test("neither a request nor a response is an invalid request that keeps its id", () => {
		expect(rejected('{"jsonrpc":"2.0","id":5}')).toMatchObject({
			jsonrpc: "2.0",
			id: 5,
			error: { code: -32600 },
		});
		expect(rejected('{"jsonrpc":"2.0"}')).toMatchObject({ id: null, error: { code: -32600 } });
		expect(rejected('{"jsonrpc":"2.0","id":6,"method":42}')).toMatchObject({
			id: 6,
			error: { code: -32600 },
		});
		// A result or an error without an id answers nothing, so it is no response either.
		expect(rejected('{"jsonrpc":"2.0","result":{}}')).toMatchObject({ id: null, error: { code: -32600 } });
	});

	test("an id that is neither a string nor a number is an invalid request", () => {
		for (const id of ["null", "true", "{}", "[1]"]) {
			const line = `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;
			expect(rejected(line)).toMatchObject({ id: null, error: { code: -32600 } });
		}
	});

	test("every error frame is a single line of JSON", () => {
		const outs = [
			parseFrame({ oversized: true }),
			parseFrame({ line: enc.encode("not json") }),
			parseFrame({ line: enc.encode("[1]") }),
			parseFrame({ line: new Uint8Array([0xff]) }),
		];
		for (const out of outs) {
			expect(typeof out).toBe("string");
			expect(out as string).not.toContain("\n");
		}
	});
});
