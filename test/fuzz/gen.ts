// Seeded generators for the fuzz suite: a small PRNG, valid frames to start from, mutations of them
// (bit flips, truncation, duplicated keys, wrong types, deep nesting, invalid UTF-8, huge numbers,
// unicode), and random frames. Everything here is pure: the same seed gives the same bytes.

/** sfc32, seeded through splitmix32: fast, 32-bit, and the same sequence on every platform. */
export class Rng {
	private a: number;
	private b: number;
	private c: number;
	private d: number;

	constructor(seed: number) {
		let s = seed >>> 0;
		const next = () => {
			s = (s + 0x9e3779b9) >>> 0;
			let z = s;
			z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
			z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
			return (z ^ (z >>> 16)) >>> 0;
		};
		this.a = next();
		this.b = next();
		this.c = next();
		this.d = next();
		for (let i = 0; i < 12; i++) this.u32();
	}

	u32(): number {
		const t = (((this.a + this.b) >>> 0) + this.d) >>> 0;
		this.d = (this.d + 1) >>> 0;
		this.a = this.b ^ (this.b >>> 9);
		this.b = (this.c + (this.c << 3)) >>> 0;
		this.c = ((this.c << 21) | (this.c >>> 11)) >>> 0;
		this.c = (this.c + t) >>> 0;
		return t;
	}

	/** An integer in [0, n). */
	int(n: number): number {
		return Math.floor((this.u32() / 0x1_0000_0000) * n);
	}

	/** An integer in [lo, hi]. */
	range(lo: number, hi: number): number {
		return lo + this.int(hi - lo + 1);
	}

	chance(p: number): boolean {
		return this.u32() / 0x1_0000_0000 < p;
	}

	pick<T>(xs: readonly T[]): T {
		return xs[this.int(xs.length)] as T;
	}

	/** A length skewed towards small: mostly under 64, sometimes up to `max`. */
	size(max: number): number {
		const bits = this.int(Math.max(1, Math.ceil(Math.log2(max + 1))) + 1);
		return Math.min(max, this.int(2 ** bits));
	}

	bytes(n: number): Uint8Array {
		const out = new Uint8Array(n);
		for (let i = 0; i < n; i++) out[i] = this.u32() & 0xff;
		return out;
	}

	/** A seed for a child generator, so that one stream's length does not shift another's. */
	fork(): Rng {
		return new Rng(this.u32());
	}
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

const enc = new TextEncoder();
export const utf8 = (s: string) => enc.encode(s);

/** Tool calls that are valid (or nearly: a not_found id) and safe to repeat: they read, or add rows. */
export function validCall(rng: Rng): { tool: string; args: Record<string, Json> } {
	const n = rng.int(1_000_000);
	const calls: (() => { tool: string; args: Record<string, Json> })[] = [
		() => ({ tool: "task.list", args: {} }),
		() => ({ tool: "task.list", args: { limit: rng.range(1, 50), status: "open" } }),
		() => ({ tool: "table.get_state", args: {} }),
		() => ({ tool: "table.watch", args: { after_event_id: 0, limit: 5 } }),
		() => ({
			tool: "task.create",
			args: { title: `fuzz ${n}`, body_md: "made by the fuzz suite", priority: 5 },
		}),
		() => ({ tool: "task.get", args: { task_id: `T-fuzz-${n}` } }),
		() => ({ tool: "task.update_status", args: { task_id: `T-fuzz-${n}`, status: "done" } }),
		() => ({ tool: "memory.query", args: { query: `fuzz note ${n}` } }),
		() => ({
			tool: "repo.read_file",
			args: { path: rng.pick(["README.md", "../outside/decoy.txt", "/etc/passwd"]) },
		}),
		() => ({ tool: "repo.search", args: { query: "fuzz", limit: 3 } }),
		() => ({ tool: "resource.claim_status", args: { limit: 5 } }),
		() => ({ tool: "resource.search", args: { query: "file:" } }),
		() => ({ tool: "proposal.list", args: { limit: 5 } }),
		() => ({ tool: "proposal.get", args: { proposal_id: `P-fuzz-${n}` } }),
		() => ({ tool: "vote.list", args: { proposal_id: `P-fuzz-${n}` } }),
		() => ({ tool: "test.get_result", args: { test_run_id: `TR-fuzz-${n}` } }),
		() => ({
			tool: "decision.record",
			args: { decided_by: "operator", decision: `fuzz ${n}`, rationale_md: "fuzz" },
		}),
		() => ({ tool: "task.create", args: { title: "t", body_md: "b", task_id: `T-fuzz-${n}`, risk: "low" } }),
	];
	return rng.pick(calls)();
}

// ------------------------------------------------------------------ random values

const UNICODE = [
	"\u0000",
	"\u2028",
	"\u2029",
	"\ufeff",
	"\u200b",
	"\u202e",
	"é",
	"e\u0301",
	"ß",
	"İ",
	"😀",
	"👩‍👩‍👧",
	"\ud800",
	"\udfff",
	"\uffff",
	"\u{10ffff}",
	"日本語",
	"\\",
	'"',
	"\n",
	"\t",
	"%00",
	"../",
	"$" + "{x}",
	"' OR 1=1 --",
];

const HUGE_NUMBERS = [
	"1e400",
	"-1e400",
	"1e-400",
	"-0",
	"123456789012345678901234567890",
	"9007199254740993",
	"-9007199254740993",
	"1.7976931348623157e308",
	"5e-324",
	"0.1e1",
	"1E+2",
	"100000000000000000000000000000000000000000000000000000000000000000000000000000000000",
];

export function randomString(rng: Rng, max = 40): string {
	const n = rng.size(max);
	let s = "";
	for (let i = 0; i < n; i++) {
		const r = rng.int(10);
		if (r < 6) s += String.fromCharCode(rng.range(0x20, 0x7e));
		else if (r < 8) s += rng.pick(UNICODE);
		else s += String.fromCharCode(rng.int(0x10000));
	}
	return s;
}

export function randomValue(rng: Rng, depth = 0): Json {
	const r = rng.int(depth > 3 ? 6 : 9);
	switch (r) {
		case 0:
			return null;
		case 1:
			return rng.chance(0.5);
		case 2:
			return rng.int(2000) - 1000;
		case 3:
			return (rng.u32() - 2 ** 31) * 2 ** rng.range(-40, 40);
		case 4:
		case 5:
			return randomString(rng);
		case 6:
		case 7: {
			// No prototype, so that a key like __proto__ is a plain own key, sent as it is.
			const out: Record<string, Json> = Object.create(null);
			for (let i = rng.size(6); i > 0; i--) out[randomKey(rng)] = randomValue(rng, depth + 1);
			return out;
		}
		default:
			return Array.from({ length: rng.size(6) }, () => randomValue(rng, depth + 1));
	}
}

const KEYS = [
	"tool",
	"args",
	"jsonrpc",
	"id",
	"method",
	"params",
	"name",
	"arguments",
	"task_id",
	"limit",
	"__proto__",
	"constructor",
	"_meta",
	"progressToken",
];

function randomKey(rng: Rng): string {
	return rng.chance(0.5) ? rng.pick(KEYS) : randomString(rng, 12);
}

// ------------------------------------------------------------------ serializing with duplicate keys

/** JSON text of `value`; with `dup`, the chosen object (by visit order) repeats one of its keys. */
function serialize(value: Json, dup?: { at: number; value: Json }): string {
	let visit = 0;
	const go = (v: Json): string => {
		if (v === null || typeof v !== "object") return JSON.stringify(v);
		if (Array.isArray(v)) return `[${v.map(go).join(",")}]`;
		const here = visit++;
		const entries = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${go(x)}`);
		const keys = Object.keys(v);
		if (dup && here === dup.at && keys.length > 0) {
			const key = keys[dup.at % keys.length] as string;
			entries.push(`${JSON.stringify(key)}:${JSON.stringify(dup.value)}`);
			entries.unshift(`${JSON.stringify(key)}:${JSON.stringify(dup.value)}`);
		}
		return `{${entries.join(",")}}`;
	};
	return go(value);
}

/** Every container and scalar position in a value, as paths. */
function paths(value: Json, prefix: (string | number)[] = [], out: (string | number)[][] = []) {
	out.push(prefix);
	if (value !== null && typeof value === "object") {
		if (Array.isArray(value)) value.forEach((x, i) => void paths(x, [...prefix, i], out));
		else for (const [k, x] of Object.entries(value)) paths(x, [...prefix, k], out);
	}
	return out;
}

function replaceAt(value: Json, path: (string | number)[], next: (old: Json) => Json): Json {
	if (path.length === 0) return next(value);
	const [head, ...rest] = path;
	if (Array.isArray(value)) {
		const copy = [...value];
		copy[head as number] = replaceAt(copy[head as number] as Json, rest, next);
		return copy;
	}
	if (value !== null && typeof value === "object") {
		const copy = { ...value };
		const key = head as string;
		Object.defineProperty(copy, key, {
			value: replaceAt(copy[key] as Json, rest, next),
			enumerable: true,
			writable: true,
			configurable: true,
		});
		return copy;
	}
	return value;
}

function otherType(rng: Rng, old: Json): Json {
	// JSON text, never String(): a value may carry keys like toString or valueOf.
	const text = JSON.stringify(old) ?? "null";
	const choices: Json[] = [null, true, false, 0, -1, 1.5, "", "x", [], {}, [old], { v: old }, text];
	return rng.pick(choices);
}

// ------------------------------------------------------------------ mutations

export type Mutation =
	| "bitflip"
	| "truncate"
	| "dupkey"
	| "wrongtype"
	| "deepnest"
	| "utf8"
	| "hugenum"
	| "unicode"
	| "splice"
	| "bytes"
	| "newline";

export const MUTATIONS: readonly Mutation[] = [
	"bitflip",
	"truncate",
	"dupkey",
	"wrongtype",
	"deepnest",
	"utf8",
	"hugenum",
	"unicode",
	"splice",
	"bytes",
	"newline",
];

const INVALID_UTF8 = [
	[0xff],
	[0xfe],
	[0xc0, 0x80],
	[0xc3, 0x28],
	[0xed, 0xa0, 0x80],
	[0xf4, 0x90, 0x80, 0x80],
	[0xe2, 0x82],
	[0x80],
	[0xf8, 0x88, 0x80, 0x80, 0x80],
];

/** Splices `insert` into `bytes` at `at`, removing `remove` bytes there. */
function spliceBytes(bytes: Uint8Array, at: number, cut: number, insert: Uint8Array): Uint8Array {
	const remove = Math.min(cut, bytes.length - at);
	const out = new Uint8Array(bytes.length - remove + insert.length);
	out.set(bytes.subarray(0, at), 0);
	out.set(insert, at);
	out.set(bytes.subarray(at + remove), at + insert.length);
	return out;
}

/**
 * One mutation of a valid frame. `keepNewlines` false removes any newline a mutation would add
 * (for transports where a newline ends the frame, unless the mutation is "newline" itself).
 */
export function mutate(rng: Rng, value: Json, kind: Mutation): Uint8Array {
	switch (kind) {
		case "bitflip": {
			const bytes = utf8(JSON.stringify(value));
			for (let i = rng.range(1, 8); i > 0 && bytes.length > 0; i--) {
				const at = rng.int(bytes.length);
				bytes[at] = (bytes[at] as number) ^ (1 << rng.int(8));
			}
			return bytes;
		}
		case "truncate": {
			const bytes = utf8(JSON.stringify(value));
			return bytes.subarray(0, rng.int(bytes.length));
		}
		case "dupkey": {
			const objects = paths(value).filter((p) => {
				let v: Json = value;
				for (const k of p) v = (v as Record<string, Json>)[k as string] as Json;
				return v !== null && typeof v === "object" && !Array.isArray(v);
			}).length;
			return utf8(serialize(value, { at: rng.int(Math.max(1, objects)), value: randomValue(rng, 3) }));
		}
		case "wrongtype": {
			const all = paths(value);
			let v = value;
			for (let i = rng.range(1, 3); i > 0; i--) v = replaceAt(v, rng.pick(all), (old) => otherType(rng, old));
			return utf8(JSON.stringify(v));
		}
		case "deepnest": {
			// Deeper than 10^4 takes the owner gigabytes while arktype describes the value (a finding);
			// this is deep enough to show it without taking a shared machine's memory.
			const depth = rng.pick([64, 1000, 3000, 10_000]);
			const [open, close] = rng.chance(0.5) ? ["[", "]"] : ['{"a":', "}"];
			const text = JSON.stringify(value);
			const where = rng.pick(paths(value));
			const marker = "\u0001NEST\u0001";
			const marked = JSON.stringify(replaceAt(value, where, () => marker));
			const inner = `${open.repeat(depth)}1${close.repeat(rng.chance(0.8) ? depth : rng.int(depth))}`;
			return utf8(marked === text ? inner : marked.replace(JSON.stringify(marker), inner));
		}
		case "utf8": {
			let bytes: Uint8Array = utf8(JSON.stringify(value));
			for (let i = rng.range(1, 3); i > 0; i--)
				bytes = spliceBytes(bytes, rng.int(bytes.length + 1), 0, Uint8Array.from(rng.pick(INVALID_UTF8)));
			return bytes;
		}
		case "hugenum": {
			const marker = "\u0001NUM\u0001";
			const at = rng.pick(paths(value));
			const text = JSON.stringify(replaceAt(value, at, () => marker));
			return utf8(text.replace(JSON.stringify(marker), rng.pick(HUGE_NUMBERS)));
		}
		case "unicode": {
			const all = paths(value);
			let v = value;
			for (let i = rng.range(1, 3); i > 0; i--)
				v = replaceAt(
					v,
					rng.pick(all),
					() => rng.pick(UNICODE).repeat(rng.range(1, 64)) + randomString(rng, 8),
				);
			// Sometimes lone surrogates as escapes, which JSON.stringify would never write.
			const text = JSON.stringify(v);
			return utf8(rng.chance(0.3) ? text.replace(/"$|"([,}\]])/, '\\ud83d"$1') : text);
		}
		case "splice": {
			const text = JSON.stringify(value);
			const other = JSON.stringify(randomValue(rng));
			const at = rng.int(text.length + 1);
			return utf8(text.slice(0, at) + other + text.slice(at + rng.int(4)));
		}
		case "bytes": {
			const bytes = utf8(JSON.stringify(value));
			const at = rng.int(bytes.length + 1);
			return spliceBytes(
				bytes,
				at,
				rng.int(3),
				rng.bytes(rng.range(1, 8)).map((b) => (b === 0x0a ? 0x20 : b)),
			);
		}
		case "newline": {
			const bytes = utf8(JSON.stringify(value));
			return spliceBytes(bytes, rng.int(bytes.length + 1), 0, utf8(rng.pick(["\n", "\r\n", "\n\n", "\r"])));
		}
	}
}

/** Random bytes, random ASCII or a random JSON value: frames nobody would write. */
export function randomFrame(rng: Rng): Uint8Array {
	switch (rng.int(4)) {
		case 0:
			return rng.bytes(rng.size(512)).map((b) => (b === 0x0a ? 0x00 : b));
		case 1: {
			const n = rng.size(256);
			let s = "";
			for (let i = 0; i < n; i++) s += String.fromCharCode(rng.range(0x20, 0x7e));
			return utf8(s);
		}
		case 2:
			return utf8(JSON.stringify(randomValue(rng)));
		default:
			return utf8(
				rng.pick(["", " ", "null", "[]", "{}", "0", '""', "true", "[{}]", '{"":""}', "\t\r", "\u00a0"]),
			);
	}
}

/** Removes newlines (a frame that must stay one line). */
export function oneLine(bytes: Uint8Array): Uint8Array {
	return bytes.includes(0x0a) ? bytes.map((b) => (b === 0x0a ? 0x20 : b)) : bytes;
}

/** `n` bytes of one ASCII letter, as a string (for huge names and keys). */
export const huge = (n: number, letter = "x") => letter.repeat(n);

export const MiB = 1024 * 1024;
