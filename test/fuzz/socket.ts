// The legacy Unix socket under fuzz: one connection per case, the frame written (in pieces, slowly,
// half-closed or cut off, as the case says), and the answer judged: exactly one
// `{"ok":true,"result":{…}}` or `{"ok":false,"error","code","details"?}` line with a stable code,
// or nothing at all when the first line was blank.
import type { Socket } from "bun";
import { ERROR_CODES } from "../../src/errors.ts";
import {
	huge,
	MiB,
	MUTATIONS,
	mutate,
	oneLine,
	type Rng,
	randomFrame,
	randomString,
	randomValue,
	utf8,
	validCall,
} from "./gen.ts";
import type { Context, Driver } from "./run.ts";
import { pool, sequence, type Tally, timeout } from "./tally.ts";

/** Every code an error may carry: the set src/errors.ts defines, nothing else. */
export const STABLE_CODES: ReadonlySet<string> = new Set(ERROR_CODES);

/** The default frame cap (limits.max_frame_bytes) and connection cap (limits.max_connections). */
export const FRAME_CAP = 16 * MiB;
export const SOCKET_CONNECTIONS = 256;
/** An error line longer than this echoes too much of the input back. */
export const MAX_ERROR_BYTES = 16 * 1024;

export interface SocketCase {
	label: string;
	/** Written in order, `gapMs` apart. */
	chunks: Uint8Array[];
	gapMs?: number;
	/** Half-close once everything is written (EOF ends the line). */
	endWrite?: boolean;
	/** Cut the connection this long after the last write, without waiting for an answer. */
	abortAfterMs?: number;
	/** The code the answer must carry; "ok" for success; undefined: any well-formed answer. */
	code?: string;
	/** A blank first line is closed without an answer. */
	allowSilence?: boolean;
	timeoutMs: number;
}

const STRICT = new TextDecoder("utf-8", { fatal: true });
const ws = (b: number) => b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a;

/** What the seed's protocol says a frame gets, judged from its bytes alone. */
function expectFor(bytes: Uint8Array, endWrite: boolean): Pick<SocketCase, "code" | "allowSilence"> {
	const nl = bytes.indexOf(0x0a);
	if (nl === -1 && !endWrite) return {}; // never ends: a deadline answer
	const line = nl === -1 ? bytes : bytes.subarray(0, nl);
	if (line.length > FRAME_CAP) return { code: "resource_exhausted" };
	let start = 0;
	let end = line.length;
	while (start < end && ws(line[start] as number)) start++;
	while (end > start && ws(line[end - 1] as number)) end--;
	if (start === end) return { allowSilence: true };
	let value: unknown;
	try {
		value = JSON.parse(STRICT.decode(line.subarray(start, end)));
	} catch {
		return { code: "invalid_argument" };
	}
	if (typeof value !== "object" || Array.isArray(value)) return { code: "invalid_argument" };
	const tool = (value as { tool?: unknown } | null)?.tool;
	if (typeof tool !== "string" || tool === "") return { code: "invalid_argument" };
	return {};
}

function framed(label: string, body: Uint8Array, rng: Rng, hangMs: number): SocketCase {
	const variant = rng.int(20);
	const nl = utf8("\n");
	if (variant === 0)
		return {
			label: `${label}+eof`,
			chunks: [body],
			endWrite: true,
			...expectFor(body, true),
			timeoutMs: hangMs,
		};
	if (variant === 1) {
		const crlf = Buffer.concat([body, utf8("\r\n")]);
		return { label: `${label}+crlf`, chunks: [crlf], ...expectFor(crlf, false), timeoutMs: hangMs };
	}
	if (variant === 2) {
		const two = Buffer.concat([body, nl, utf8('{"tool":"task.list","args":{}}\n')]);
		return { label: `${label}+second-line`, chunks: [two], ...expectFor(two, false), timeoutMs: hangMs };
	}
	if (variant === 3) {
		const all = Buffer.concat([body, nl]);
		const parts: Uint8Array[] = [];
		for (let at = 0; at < all.length; ) {
			const n = rng.range(1, 16);
			parts.push(all.subarray(at, at + n));
			at += n;
		}
		return {
			label: `${label}+pieces`,
			chunks: parts.slice(0, 64).concat(parts.length > 64 ? [all.subarray(64 * 16)] : []),
			...expectFor(all, false),
			timeoutMs: hangMs,
		};
	}
	if (variant === 4)
		return {
			label: `${label}+abort`,
			chunks: [Buffer.concat([body, nl])],
			abortAfterMs: rng.int(5),
			timeoutMs: hangMs,
		};
	const line = Buffer.concat([body, nl]);
	return { label, chunks: [line], ...expectFor(line, false), timeoutMs: hangMs };
}

/** The `i`th generated case of a run. */
export function socketCase(rng: Rng, hangMs: number): SocketCase {
	const r = rng.int(100);
	if (r < 45) {
		const call = validCall(rng);
		const envelope = rng.chance(0.1) ? { ...call, extra: randomValue(rng) } : call;
		const kind = rng.pick(MUTATIONS);
		return framed(`mutated:${kind}`, oneLineUnless(kind, mutate(rng, envelope, kind)), rng, hangMs);
	}
	if (r < 60) {
		const call = validCall(rng);
		return framed(`valid:${call.tool}`, utf8(JSON.stringify(call)), rng, hangMs);
	}
	if (r < 80) return framed("random:frame", oneLine(randomFrame(rng)), rng, hangMs);
	if (r < 95) {
		const tool = rng.chance(0.5) ? randomString(rng, 60) : validCall(rng).tool;
		const body = { tool, args: randomValue(rng) };
		return framed("random:envelope", oneLine(utf8(JSON.stringify(body))), rng, hangMs);
	}
	// Long names and keys, far below the issue's sizes (those are the fixed cases).
	const n = rng.pick([1024, 4096, 16 * 1024, 64 * 1024]);
	const body = rng.chance(0.5)
		? { tool: huge(n, rng.pick(["x", "t", "é"])), args: {} }
		: { tool: "task.list", args: { [huge(n, "k")]: 1 } };
	return framed(`long:${n}`, utf8(JSON.stringify(body)), rng, hangMs);
}

function oneLineUnless(kind: string, bytes: Uint8Array): Uint8Array {
	return kind === "newline" ? bytes : oneLine(bytes);
}

/** The issue's cases: huge names and keys, over-cap lines, stalled and slow writers. */
export function socketIssueCases(deadlineMs: number, hangMs: number): SocketCase[] {
	const stallMs = deadlineMs + hangMs;
	const line = (s: string) => utf8(`${s}\n`);
	const nameOf = (n: number) => line(JSON.stringify({ tool: huge(n), args: {} }));
	const keyOf = (n: number) => line(JSON.stringify({ tool: "task.list", args: { [huge(n, "k")]: 1 } }));
	return [
		{ label: "issue:huge-name-100k", chunks: [nameOf(100_000)], code: "not_found", timeoutMs: hangMs },
		{ label: "issue:huge-name-8m", chunks: [nameOf(8 * MiB)], code: "not_found", timeoutMs: hangMs },
		{ label: "issue:huge-name-16m", chunks: [nameOf(FRAME_CAP - 64)], code: "not_found", timeoutMs: hangMs },
		{ label: "issue:huge-key-8m", chunks: [keyOf(8 * MiB)], code: "invalid_argument", timeoutMs: hangMs },
		{
			label: "issue:huge-key-16m",
			chunks: [keyOf(FRAME_CAP - 64)],
			code: "invalid_argument",
			timeoutMs: hangMs,
		},
		{
			label: "issue:near-name-16m",
			chunks: [line(JSON.stringify({ tool: `task.lis${huge(FRAME_CAP - 64, "t")}`, args: {} }))],
			code: "not_found",
			timeoutMs: hangMs,
		},
		{
			label: "issue:over-cap-line",
			chunks: [utf8(huge(FRAME_CAP + 1)), line("")],
			code: "resource_exhausted",
			timeoutMs: hangMs,
		},
		{
			label: "issue:over-cap-no-newline",
			chunks: [utf8(huge(FRAME_CAP + MiB))],
			code: "resource_exhausted",
			timeoutMs: stallMs,
		},
		{
			label: "issue:stalled-line",
			chunks: [utf8('{"tool":"task.li')],
			code: "deadline_exceeded",
			timeoutMs: stallMs,
		},
		{ label: "issue:stalled-empty", chunks: [], code: "deadline_exceeded", timeoutMs: stallMs },
		{
			label: "issue:slow-writer",
			chunks: Array.from({ length: Math.ceil(deadlineMs / 250) + 4 }, () => utf8(" ")),
			gapMs: 250,
			code: "deadline_exceeded",
			timeoutMs: stallMs + deadlineMs,
		},
		{
			// Found by this suite: a 10^4-deep array in an enum field stalls the owner for seconds while
			// the validator describes it (quadratic), and the message echoes all of it.
			label: "finding:deep-enum-10k",
			chunks: [
				utf8(
					`{"tool":"task.create","args":{"title":"t","body_md":"b","risk":${"[".repeat(10_000)}1${"]".repeat(10_000)}}}\n`,
				),
			],
			code: "invalid_argument",
			timeoutMs: hangMs,
		},
		{ label: "issue:blank-line", chunks: [line("   \t")], allowSilence: true, timeoutMs: hangMs },
		{
			label: "issue:eof-no-newline",
			chunks: [utf8('{"tool":"task.list","args":{}}')],
			endWrite: true,
			code: "ok",
			timeoutMs: hangMs,
		},
		{
			label: "issue:many-lines",
			chunks: [line('{"tool":"task.list","args":{}}\n'.repeat(10_000))],
			code: "ok",
			timeoutMs: hangMs,
		},
		{
			label: "issue:nul-bytes",
			chunks: [Uint8Array.from([0, 0, 0, 0x0a])],
			code: "invalid_argument",
			timeoutMs: hangMs,
		},
		{ label: "issue:bom", chunks: [line('\ufeff{"tool":"task.list","args":{}}')], timeoutMs: hangMs },
	];
}

export interface SocketAnswer {
	bytes: Buffer;
	error?: string;
	ms: number;
	timedOut: boolean;
}

/**
 * One connection: write the case, read until the server closes (or the time runs out). Bun's own
 * socket, not node:net, whose socket is destroyed on EPIPE with the server's answer still unread.
 */
export function socketExchange(path: string, c: SocketCase): Promise<SocketAnswer> {
	const started = performance.now();
	return new Promise((resolve) => {
		const chunks: Buffer[] = [];
		let size = 0;
		let error: string | undefined;
		let settled = false;
		let sock: Socket<undefined> | undefined;
		// What is left to write: the current chunk from `offset`, then the chunks after it.
		let index = 0;
		let offset = 0;
		let writable = true;
		const limit = timeout(c.timeoutMs, "timeout");
		const finish = (timedOut: boolean) => {
			if (settled) return;
			settled = true;
			limit.clear();
			sock?.terminate();
			resolve({
				bytes: Buffer.concat(chunks),
				ms: performance.now() - started,
				timedOut,
				...(error && { error }),
			});
		};
		void limit.promise.then(() => finish(true));
		const pump = async (s: Socket<undefined>) => {
			while (!settled && writable && index < c.chunks.length) {
				const chunk = c.chunks[index] as Uint8Array;
				while (offset < chunk.length) {
					const n = s.write(chunk.subarray(offset, offset + 1024 * 1024));
					if (n < 0) {
						writable = false;
						return;
					}
					if (n === 0) return; // the rest goes on drain
					offset += n;
				}
				index++;
				offset = 0;
				if (c.gapMs && index < c.chunks.length) {
					writable = false; // no drain-driven writes during the pause
					await Bun.sleep(c.gapMs);
					writable = true;
				}
			}
			if (settled || index < c.chunks.length) return;
			if (c.endWrite) s.shutdown(); // half-close: the answer can still come back
			if (c.abortAfterMs !== undefined) {
				await Bun.sleep(c.abortAfterMs);
				finish(false);
			}
		};
		Bun.connect({
			unix: path,
			allowHalfOpen: true,
			socket: {
				open(s) {
					sock = s;
					void pump(s);
				},
				drain(s) {
					void pump(s);
				},
				data(_s, d) {
					if (size < 4 * MiB) chunks.push(Buffer.from(d));
					size += d.length;
				},
				end(s) {
					s.end();
					finish(false);
				},
				close() {
					finish(false);
				},
				error(_s, err) {
					const code = (err as NodeJS.ErrnoException).code;
					if (code !== "EPIPE") error = code ?? err.message;
				},
			},
		}).catch((err: Error) => {
			error = err.message;
			finish(false);
		});
	});
}

/** Judges an answer; records a failure on the tally; returns the reply (when there was one). */
export function judgeSocket(
	t: Tally,
	c: SocketCase,
	a: SocketAnswer,
	deadlineMs = 2000,
): Record<string, unknown> | undefined {
	if (a.timedOut) {
		t.fail("hang", c.label, `no answer and no close within ${c.timeoutMs} ms (got ${a.bytes.length} bytes)`);
		return undefined;
	}
	if (c.abortAfterMs !== undefined) return undefined;
	if (a.bytes.length === 0) {
		if (c.allowSilence) return undefined;
		t.fail("malformed", c.label, `the connection closed without an answer${a.error ? ` (${a.error})` : ""}`);
		return undefined;
	}
	const text = a.bytes.toString("utf8");
	if (!text.endsWith("\n") || text.indexOf("\n") !== text.length - 1) {
		t.fail("malformed", c.label, `not exactly one line: ${JSON.stringify(text.slice(0, 200))}`);
		return undefined;
	}
	let reply: Record<string, unknown>;
	try {
		reply = JSON.parse(text) as Record<string, unknown>;
	} catch {
		t.fail("malformed", c.label, `the answer is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
		return undefined;
	}
	const problem = replyProblem(reply);
	if (problem) {
		t.fail("malformed", c.label, `${problem}: ${text.slice(0, 200)}`);
		return undefined;
	}
	const code = reply.ok ? "ok" : (reply.code as string);
	t.answer(code);
	if (c.code !== undefined && code !== c.code && code === "deadline_exceeded" && a.ms >= deadlineMs) {
		// The owner was busy (another case stalled it) past the read deadline: that case is the finding.
		t.note("deadline_exceeded answers to complete lines while the owner was stalled by another case");
	} else if (c.code !== undefined && code !== c.code) {
		t.fail("malformed", c.label, `expected ${c.code}, got ${code}: ${text.slice(0, 200)}`);
	} else if (!reply.ok && a.bytes.length > MAX_ERROR_BYTES) {
		t.fail(
			"malformed",
			c.label,
			`an error line of ${a.bytes.length} bytes echoes the input: ${text.slice(0, 120)}…`,
		);
	}
	return reply;
}

/** Why a parsed line is not a reply of the seed's protocol (undefined when it is one). */
export function replyProblem(reply: unknown): string | undefined {
	if (typeof reply !== "object" || reply === null || Array.isArray(reply)) return "not an object";
	const r = reply as Record<string, unknown>;
	if (r.ok === true) {
		if (typeof r.result !== "object" || r.result === null || Array.isArray(r.result))
			return "ok without an object result";
		if ("error" in r) return "ok with an error";
		return undefined;
	}
	if (r.ok !== false) return "ok is not a boolean";
	if (typeof r.error !== "string" || r.error === "") return "no error message";
	if (typeof r.code !== "string" || !STABLE_CODES.has(r.code))
		return `unstable code ${JSON.stringify(r.code)}`;
	if ("details" in r && (typeof r.details !== "object" || r.details === null || Array.isArray(r.details)))
		return "details is not an object";
	if ("result" in r) return "an error with a result";
	return undefined;
}

/** More connections than the cap, each stalled mid-line: each must get one answer line. */
export async function socketFlood(
	t: Tally,
	path: string,
	deadlineMs: number,
	hangMs: number,
	extra = 40,
): Promise<void> {
	const n = SOCKET_CONNECTIONS + extra;
	const c: SocketCase = {
		label: `issue:flood-${n}`,
		chunks: [utf8('{"tool":')],
		timeoutMs: deadlineMs + hangMs,
	};
	const started = performance.now();
	const answers = await Promise.all(Array.from({ length: n }, () => socketExchange(path, c)));
	const codes = new Map<string, number>();
	for (const a of answers) {
		const reply = judgeSocket(t, { ...c, code: undefined }, a);
		const code = reply ? (reply.ok ? "ok" : String(reply.code)) : "none";
		codes.set(code, (codes.get(code) ?? 0) + 1);
		if (reply && code !== "deadline_exceeded" && code !== "resource_exhausted")
			t.fail("malformed", c.label, `a stalled connection answered ${code}`);
	}
	t.sent(c.label, performance.now() - started);
	t.note(`socket flood of ${n} stalled connections: ${[...codes].map(([k, v]) => `${k} ${v}`).join(", ")}`);
}

/** The socket's driver for `run`. */
export async function socketDriver(ctx: Context): Promise<Driver> {
	const { owner, tally, options, deadlineMs } = ctx;
	const path = owner.socket;
	/** One case; true when it hung. */
	const one = async (c: SocketCase) => {
		const a = await socketExchange(path, c);
		tally.sent(c.label, a.ms);
		judgeSocket(tally, c, a, deadlineMs);
		return a.timedOut;
	};
	return {
		pids: { owner: owner.proc.pid },
		dead: () => (owner.alive() ? undefined : "owner"),
		async valid() {
			const c: SocketCase = {
				label: "valid:task.list",
				chunks: [utf8('{"tool":"task.list","args":{"limit":1}}\n')],
				timeoutMs: options.hangMs,
			};
			const a = await socketExchange(path, c);
			if (a.timedOut) return `no answer within ${options.hangMs} ms`;
			try {
				const reply = JSON.parse(a.bytes.toString("utf8")) as { ok?: boolean; result?: { tasks?: unknown } };
				return reply.ok === true && Array.isArray(reply.result?.tasks)
					? undefined
					: `answered ${a.bytes.toString("utf8").slice(0, 200)}`;
			} catch {
				return `not JSON: ${JSON.stringify(a.bytes.toString("utf8").slice(0, 200))}`;
			}
		},
		async batch(rng, size) {
			const cases = Array.from({ length: size }, () => socketCase(rng, options.hangMs));
			await pool(cases, options.concurrency, async (c) => void (await one(c)));
		},
		async issues() {
			const fixed = socketIssueCases(deadlineMs, options.hangMs);
			// The stalled ones wait out the read deadline together; the big ones go one at a time.
			const stalled = fixed.filter((c) => c.timeoutMs > options.hangMs);
			const rest = fixed.filter((c) => c.timeoutMs <= options.hangMs);
			const waiting = Promise.all(stalled.map(one));
			const hung = await sequence(rest, one, tally);
			await waiting;
			if (hung) tally.note("the socket flood was skipped: an earlier case hung the owner");
			else await socketFlood(tally, path, deadlineMs, options.hangMs, options.long ? 200 : 40);
		},
		async close() {},
	};
}
