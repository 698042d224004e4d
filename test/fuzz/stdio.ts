// The stdio bridge under fuzz: lines written to a real `roundtable mcp stdio` subprocess relaying to
// a real owner, every stdout line judged as a JSON-RPC 2.0 message, and each batch's answers matched
// against what its lines are owed: one answer per request id, one error per broken line (id null,
// or the line's id when it has one), nothing for notifications and responses.
import { type Bridge, startBridge } from "./env.ts";
import { huge, MiB, type Rng, utf8 } from "./gen.ts";
import { idKey, MAX_ERROR_CHARS, messageProblem, owed, PROTOCOL, rpcFrame } from "./rpc.ts";
import type { Context, Driver } from "./run.ts";
import { sequence, type Tally } from "./tally.ts";

const LINE_CAP = 16 * MiB;

interface Answer {
	key: string | null;
	isResult: boolean;
	size: number;
	code?: number;
}

/** What a batch of lines is owed, and how to check what came back. */
class Ledger {
	/** Request ids (a result or an error) and ids of invalid lines (an error), with counts. */
	readonly requests = new Map<string, number>();
	readonly invalid = new Map<string, number>();
	/** Errors with id null owed (parse errors, invalid lines without a usable id). */
	nulls = 0;
	readonly labels = new Map<string, string>();

	/** Notes one stdin line as the bridge will see it (pieces between newlines). */
	add(label: string, bytes: Uint8Array): void {
		let start = 0;
		for (;;) {
			const nl = bytes.indexOf(0x0a, start);
			const piece = bytes.subarray(start, nl === -1 ? bytes.length : nl);
			this.piece(label, piece);
			if (nl === -1) break;
			start = nl + 1;
		}
	}

	private piece(label: string, piece: Uint8Array): void {
		if (piece.every((b) => b === 0x20 || b === 0x09 || b === 0x0d)) return; // blank: skipped
		if (piece.length > LINE_CAP) {
			this.nulls++;
			return;
		}
		const o = owed(piece, true);
		if (o.kind === "parse-error") this.nulls++;
		else if (o.kind === "invalid") {
			if (o.id === null) this.nulls++;
			else this.invalid.set(o.id, (this.invalid.get(o.id) ?? 0) + 1);
		} else if (o.kind === "request") {
			this.requests.set(o.id, (this.requests.get(o.id) ?? 0) + 1);
			this.labels.set(o.id, label);
		}
		if (o.kind === "invalid" && o.id !== null) this.labels.set(o.id, label);
	}

	/** Request ids in this batch (so that no two lines in flight share one). */
	ids(): string[] {
		return [...this.requests.keys(), ...this.invalid.keys()];
	}

	/** True once the answers could settle the ledger (every request answered, enough errors). */
	complete(answers: Answer[]): boolean {
		const keyed = new Map<string, number>();
		let nulls = 0;
		for (const a of answers) {
			if (a.key === null) nulls++;
			else keyed.set(a.key, (keyed.get(a.key) ?? 0) + 1);
		}
		for (const [k, n] of this.requests) if ((keyed.get(k) ?? 0) < n) return false;
		let invalidShort = 0;
		for (const [k, n] of this.invalid) invalidShort += Math.max(0, n - (keyed.get(k) ?? 0));
		return nulls >= this.nulls + invalidShort;
	}

	/** Matches the answers; failures go on the tally. */
	settle(t: Tally, answers: Answer[], waitedMs: number): void {
		const requests = new Map(this.requests);
		const invalid = new Map(this.invalid);
		let nulls = 0;
		for (const a of answers) {
			if (a.key === null) {
				nulls++;
				continue;
			}
			const label = this.labels.get(a.key) ?? "stdio";
			if ((requests.get(a.key) ?? 0) > 0) requests.set(a.key, (requests.get(a.key) as number) - 1);
			else if ((invalid.get(a.key) ?? 0) > 0) {
				invalid.set(a.key, (invalid.get(a.key) as number) - 1);
				if (a.isResult) t.fail("malformed", label, `a result for the invalid line with id ${a.key}`);
			} else
				t.fail(
					"malformed",
					label,
					`an answer with id ${a.key}, which no line in flight had (or a second one)`,
				);
		}
		// An invalid line with an id may be answered with id null as well.
		let owedNulls = this.nulls;
		for (const n of invalid.values()) owedNulls += n;
		if (nulls < owedNulls)
			t.fail(
				"hang",
				"stdio:errors",
				`${owedNulls - nulls} of ${owedNulls} error answers owed (id null or the line's id) did not come within ${waitedMs} ms`,
			);
		if (nulls > owedNulls) t.answer("unsolicited id-null error");
		for (const [k, n] of requests)
			if (n > 0)
				t.fail("hang", this.labels.get(k) ?? "stdio", `request ${k} got no answer within ${waitedMs} ms`);
	}
}

/** Reads the bridge's stdout as lines, each judged as a message; answers go to the current list. */
class Reader {
	answers: Answer[] = [];
	private buffer: Buffer[] = [];
	private size = 0;
	readonly done: Promise<void>;

	constructor(
		stream: ReadableStream<Uint8Array>,
		private readonly t: Tally,
	) {
		this.done = (async () => {
			for await (const chunk of stream) this.take(Buffer.from(chunk));
		})();
	}

	private take(chunk: Buffer): void {
		let start = 0;
		for (;;) {
			const nl = chunk.indexOf(0x0a, start);
			if (nl === -1) {
				this.buffer.push(chunk.subarray(start));
				this.size += chunk.length - start;
				return;
			}
			this.buffer.push(chunk.subarray(start, nl));
			const line = Buffer.concat(this.buffer).toString("utf8");
			this.buffer = [];
			this.size = 0;
			this.line(line);
			start = nl + 1;
		}
	}

	private line(text: string): void {
		let m: unknown;
		try {
			m = JSON.parse(text);
		} catch {
			this.t.fail("malformed", "stdout", `a line that is not JSON: ${text.slice(0, 200)}`);
			return;
		}
		const problem = messageProblem(m);
		if (problem) {
			this.t.fail("malformed", "stdout", `${problem}: ${text.slice(0, 200)}`);
			return;
		}
		const r = m as {
			id?: unknown;
			method?: unknown;
			result?: { isError?: boolean };
			error?: { code: number };
		};
		if (typeof r.method === "string") return; // a notification (progress, logging) or server request
		const isError = r.error !== undefined || r.result?.isError === true;
		if (isError && text.length > MAX_ERROR_CHARS)
			this.t.fail(
				"malformed",
				"stdout",
				`an error of ${text.length} characters echoes the input: ${text.slice(0, 120)}…`,
			);
		if (r.error) this.t.answer(`rpc ${r.error.code}`);
		if (r.error?.code === -32603) this.t.note(`internal error: ${text.replace(/\s+/g, " ").slice(0, 200)}`);
		else this.t.answer(r.result?.isError ? "tool error" : "result");
		this.answers.push({
			key: r.id === null ? null : idKey(r.id),
			isResult: r.error === undefined,
			size: text.length,
			...(r.error && { code: r.error.code }),
		});
	}
}

let seq = 0;

export async function stdioDriver(ctx: Context): Promise<Driver> {
	const { sb, owner, tally, options } = ctx;
	const bridge: Bridge = startBridge(sb);
	const reader = new Reader(bridge.proc.stdout, tally);
	const used = new Set<string>();
	const write = async (bytes: Uint8Array) => {
		bridge.proc.stdin.write(bytes);
		await bridge.proc.stdin.flush();
	};
	/** Writes lines and waits for what they are owed (up to `ms`). */
	const exchange = async (lines: { label: string; bytes: Uint8Array; splitAt?: number }[], ms: number) => {
		const ledger = new Ledger();
		for (const l of lines) ledger.add(l.label, l.bytes);
		reader.answers = [];
		const started = performance.now();
		for (const l of lines) {
			tally.sent(l.label);
			if (l.splitAt === undefined) await write(l.bytes);
			else {
				await write(l.bytes.subarray(0, l.splitAt));
				await Bun.sleep(300);
				await write(l.bytes.subarray(l.splitAt));
			}
		}
		while (!ledger.complete(reader.answers) && performance.now() - started < ms && bridge.alive())
			await Bun.sleep(10);
		// A moment for extra answers that should not come.
		await Bun.sleep(20);
		const waited = Math.round(performance.now() - started);
		const hangs = tally.counts.hang;
		ledger.settle(tally, reader.answers, waited);
		// Batches are timed as a whole; the issue's exchanges by their first line's kind.
		if (lines[0]?.label.startsWith("issue:")) tally.took(lines[0].label, waited);
		reader.answers = [];
		return tally.counts.hang > hangs;
	};
	const request = async (id: string, method: string, params: object) => {
		reader.answers = [];
		await write(utf8(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`));
		const key = JSON.stringify(id);
		const started = performance.now();
		while (performance.now() - started < options.hangMs && bridge.alive()) {
			const got = reader.answers.find((a) => a.key === key);
			if (got) return got;
			await Bun.sleep(5);
		}
		return undefined;
	};
	const init = await request("init", "initialize", {
		protocolVersion: PROTOCOL,
		capabilities: {},
		clientInfo: { name: "fuzz", version: "1" },
	});
	if (!init?.isResult) throw new Error(`the bridge did not initialize: ${bridge.stderr()}`);
	await write(utf8(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`));
	let validId = 0;

	/** A frame whose ids (as the bridge reads them) no earlier line used. */
	const fresh = (rng: Rng) => {
		for (let i = 0; i < 8; i++) {
			const id = rng.chance(0.5) ? `s${++seq}` : 2_000_000 + ++seq;
			const f = rpcFrame(rng, id);
			const bytes = f.bytes.at(-1) === 0x0a ? f.bytes : Buffer.concat([f.bytes, utf8("\n")]);
			const ledger = new Ledger();
			ledger.add(f.label, bytes);
			const ids = ledger.ids();
			if (ids.some((k) => used.has(k))) continue;
			for (const k of ids) used.add(k);
			return { label: f.label, bytes };
		}
		const id = `s${++seq}`;
		used.add(JSON.stringify(id));
		return {
			label: "valid:ping",
			bytes: utf8(`${JSON.stringify({ jsonrpc: "2.0", id, method: "ping" })}\n`),
		};
	};

	const memoryNotes: string[] = [];
	return {
		pids: { owner: owner.proc.pid, bridge: bridge.proc.pid },
		dead: () => (!owner.alive() ? "owner" : !bridge.alive() ? "bridge" : undefined),
		async valid() {
			const a = await request(`valid-${++validId}`, "tools/call", {
				name: "task.list",
				arguments: { limit: 1 },
			});
			if (!a) return `no answer within ${options.hangMs} ms`;
			return a.isResult ? undefined : `answered an error (${a.code})`;
		},
		async batch(rng, size) {
			const lines = Array.from({ length: size }, () => fresh(rng));
			await exchange(lines, options.hangMs + size * 5);
		},
		async issues() {
			const call = (id: string, name: string, args: object = {}) =>
				utf8(
					`${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } })}\n`,
				);
			const single = (label: string, bytes: Uint8Array) => ({ label, lines: [{ label, bytes }] });
			const steps = [
				single("issue:huge-name-100k", call("i1", huge(100_000))),
				single("issue:huge-name-8m", call("i2", huge(8 * MiB))),
				single("issue:huge-name-16m", call("i3", huge(LINE_CAP - 128))),
				single("issue:huge-key-16m", call("i4", "task.list", { [huge(LINE_CAP - 128, "k")]: 1 })),
				single("issue:near-name-8m", call("i5", `task.lis${huge(8 * MiB, "t")}`)),
				// An oversized line, then a request: the stream goes on.
				{
					label: "issue:oversized-line",
					lines: [
						{ label: "issue:oversized-line", bytes: utf8(`${huge(LINE_CAP + 1)}\n`) },
						{ label: "issue:after-oversized", bytes: call("i6", "task.list") },
					],
				},
				// A line in two writes with a pause between.
				{
					label: "issue:split-line",
					lines: [
						{
							label: "issue:split-line",
							bytes: utf8('{"jsonrpc":"2.0","id":"i7","method":"ping"}\n'),
							splitAt: 30,
						},
					],
				},
			];
			if (await sequence(steps, (step) => exchange(step.lines, options.hangMs), tally)) {
				tally.note("the stdio floods were skipped: an earlier case hung");
				return;
			}
			// Floods: valid 1 MB frames, then oversized and malformed lines; the bridge's peak memory noted.
			const big = options.long ? 300 : 16;
			const frames = Array.from({ length: big }, (_, i) => ({
				label: "issue:flood-1mb",
				bytes:
					i % 2 === 0
						? call(`f${i}`, "task.get", { task_id: huge(MiB, "t") })
						: utf8(
								`${JSON.stringify({ jsonrpc: "2.0", id: `f${i}`, method: "ping", params: { _meta: { pad: huge(MiB) } } })}\n`,
							),
			}));
			await exchange(frames, options.hangMs + big * 50);
			const oversized = options.long ? 24 : 2;
			const junk: { label: string; bytes: Uint8Array }[] = [];
			for (let i = 0; i < oversized; i++) {
				junk.push({ label: "issue:flood-oversized", bytes: utf8(`${huge(LINE_CAP + MiB)}\n`) });
				for (let j = 0; j < 250; j++)
					junk.push({ label: "issue:flood-malformed", bytes: utf8(`{"jsonrpc":"2.0","id":${j},\n`) });
			}
			await exchange(junk, options.hangMs + oversized * 1000);
			memoryNotes.push(
				`stdio floods: ${big} frames of 1 MB, then ${oversized} lines of 17 MiB and ${oversized * 250} malformed lines`,
			);
		},
		async close() {
			for (const n of memoryNotes) tally.note(n);
			const before = performance.now();
			bridge.proc.stdin.end();
			const exit = await Promise.race([bridge.proc.exited, Bun.sleep(5000).then(() => "timeout" as const)]);
			if (exit === "timeout") {
				tally.fail("hang", "stdio:eof", "the bridge did not exit within 5 s of stdin's end");
				bridge.proc.kill("SIGKILL");
			} else if (exit !== 0)
				tally.fail("crash", "stdio:eof", `the bridge exited ${exit}: ${bridge.stderr().slice(-300)}`);
			else tally.note(`the bridge exited 0, ${Math.round(performance.now() - before)} ms after stdin's end`);
			await reader.done.catch(() => {});
		},
	};
}
