// One fuzz run over one transport, shared by the short run (test/fuzz.test.ts) and the long one
// (test/fuzz/long.ts): a sandboxed project and a real owner (and bridge), then batches of seeded
// cases with the issue's fixed cases among them, a valid call after every batch, and at the end the
// owner's exit, the database's integrity and the sandbox outside the project checked.
import {
	changedOutside,
	integrity,
	makeSandbox,
	type Owner,
	peakSampler,
	READ_DEADLINE_S,
	rss,
	type Sandbox,
	startOwner,
} from "./env.ts";
import { Rng } from "./gen.ts";
import { mib, Tally } from "./tally.ts";

export type Transport = "socket" | "http" | "stdio";

export interface FuzzOptions {
	seed: number;
	/** Generated cases (the issue's fixed cases come on top). */
	cases: number;
	batch: number;
	concurrency: number;
	/** A case with no answer after this long is a hang (stalled cases get the read deadline on top). */
	hangMs: number;
	/** How many times the issue's fixed cases run (spread over the run). */
	issueRounds: number;
	/** Bigger floods (the long run). */
	long: boolean;
	log: (line: string) => void;
}

export interface Memory {
	before: number;
	peak: number;
	after: number;
}

export interface FuzzReport {
	transport: Transport;
	seed: number;
	tally: Tally;
	ms: number;
	memory: Record<string, Memory>;
	integrity: string;
	outside: string[];
}

/** What a transport's driver does; `run` below does the rest. */
export interface Driver {
	/** The processes to watch (owner, bridge) by name. */
	pids: Record<string, number>;
	/** The name of a watched process that died, if one did. */
	dead(): string | undefined;
	/** A plain valid call (task.list); a problem, or undefined when it was answered well. */
	valid(): Promise<string | undefined>;
	batch(rng: Rng, size: number): Promise<void>;
	/** The issue's fixed cases, once. */
	issues(round: number): Promise<void>;
	close(): Promise<void>;
}

export interface Context {
	sb: Sandbox;
	owner: Owner;
	tally: Tally;
	options: FuzzOptions;
	deadlineMs: number;
}

const SALT: Record<Transport, number> = { socket: 0x50c7, http: 0x4774, stdio: 0x57d1 };

/**
 * Runs each transport's driver in turn against one owner in one sandbox (the short run shares them;
 * the long run calls this once per transport). The owner's exit, the database's integrity and the
 * sandbox are checked once at the end, and count against the last transport's report.
 */
export async function run(
	transports: [Transport, (ctx: Context) => Promise<Driver>][],
	options: FuzzOptions,
): Promise<FuzzReport[]> {
	const sb = await makeSandbox();
	const before = sb.outside();
	let owner = await startOwner(sb);
	const reports: FuzzReport[] = [];
	/** Stops the owner; a failure to stop cleanly counts on `t` unless the owner was already stuck. */
	const stop = async (t: Tally, stuck: boolean) => {
		const wasAlive = owner.alive();
		const exit = await owner.stop(stuck ? 5000 : 15_000);
		if (wasAlive && exit !== 0) {
			if (stuck) t.note(`the stuck owner was stopped: ${exit}`);
			else t.fail("crash", "stop", `the owner stopped with ${exit}: ${owner.stderr().slice(-300)}`);
		}
		const check = integrity(sb);
		if (check !== "ok") t.fail("corrupt", "integrity_check", check);
		return check;
	};
	let check = "not run";
	try {
		for (const [i, [transport, makeDriver]] of transports.entries()) {
			let report: FuzzReport;
			try {
				report = await runOne(transport, makeDriver, { sb, owner, options });
			} catch (err) {
				const tally = new Tally(transport);
				tally.fail("valid-call", "setup", (err as Error).message);
				report = { transport, seed: options.seed, tally, ms: 0, memory: {}, integrity: "", outside: [] };
			}
			reports.push(report);
			const t = report.tally;
			const stuck = t.counts["valid-call"] > 0 || t.counts.crash > 0;
			if (stuck && i < transports.length - 1) {
				// The owner is stuck or gone: the next transport gets a fresh one on the same project.
				check = await stop(t, true);
				owner = await startOwner(sb);
			}
		}
	} finally {
		const last = reports.at(-1)?.tally ?? new Tally("owner");
		const stuck = last.counts["valid-call"] > 0 || last.counts.crash > 0;
		const final = await stop(last, stuck);
		if (check === "not run" || check === "ok") check = final;
		const outside = changedOutside(before, sb.outside());
		for (const path of outside) last.fail("outside-write", "sandbox", path);
		for (const r of reports) {
			r.integrity = check;
			r.outside = outside;
		}
		sb.remove();
	}
	return reports;
}

async function runOne(
	transport: Transport,
	makeDriver: (ctx: Context) => Promise<Driver>,
	{ sb, owner, options }: { sb: Sandbox; owner: Owner; options: FuzzOptions },
): Promise<FuzzReport> {
	const started = performance.now();
	const tally = new Tally(transport);
	const memory: Record<string, Memory> = {};
	const samplers: Record<string, ReturnType<typeof peakSampler>> = {};
	const ctx: Context = { sb, owner, tally, options, deadlineMs: READ_DEADLINE_S * 1000 };
	const driver = await makeDriver(ctx);
	try {
		for (const [name, pid] of Object.entries(driver.pids)) {
			memory[name] = { before: rss(pid), peak: 0, after: 0 };
			samplers[name] = peakSampler(pid);
		}
		const rng = new Rng((options.seed ^ SALT[transport]) >>> 0);
		const batches = Math.ceil(options.cases / options.batch);
		const issueAt = new Set(
			Array.from({ length: options.issueRounds }, (_, i) =>
				Math.floor(((i + 0.5) * batches) / options.issueRounds),
			),
		);
		let problem = await driver.valid();
		if (problem) tally.fail("valid-call", "before the run", problem);
		let round = 0;
		for (let b = 0; b <= batches && !problem; b++) {
			if (issueAt.has(b)) {
				await driver.issues(round++);
				tally.batches++;
				problem = await afterBatch(driver, tally, owner, `the issue's cases (round ${round})`);
				if (problem) break;
			}
			if (b === batches) break;
			await driver.batch(rng.fork(), Math.min(options.batch, options.cases - b * options.batch));
			tally.batches++;
			problem = await afterBatch(driver, tally, owner, `batch ${b}`);
			if ((b + 1) % 20 === 0 || b === batches - 1)
				options.log(
					`${transport}: ${tally.cases} cases, ${tally.failed} failures, owner ${mib(rss(owner.proc.pid))}`,
				);
		}
		if (problem) options.log(`${transport}: stopped early: ${problem}`);
	} catch (err) {
		// A bug of the suite itself: counted (so the run fails) and the tally so far kept.
		tally.fail("harness", "fuzz suite", (err as Error).stack ?? String(err));
		options.log(`${transport}: the fuzz suite threw: ${(err as Error).stack}`);
	}
	try {
		for (const [name, pid] of Object.entries(driver.pids)) {
			const m = memory[name] as Memory;
			m.after = rss(pid);
			m.peak = (samplers[name] as ReturnType<typeof peakSampler>).stop();
		}
	} finally {
		for (const s of Object.values(samplers)) s.stop();
		await driver.close();
	}
	return {
		transport,
		seed: options.seed,
		tally,
		ms: performance.now() - started,
		memory,
		integrity: "",
		outside: [],
	};
}

/** After a batch: every watched process alive, and a valid call answered. A problem stops the run. */
async function afterBatch(
	driver: Driver,
	tally: Tally,
	owner: Owner,
	what: string,
): Promise<string | undefined> {
	const dead = driver.dead();
	if (dead) {
		tally.fail("crash", what, `the ${dead} exited: ${owner.stderr().slice(-300)}`);
		return `the ${dead} exited`;
	}
	const problem = await driver.valid();
	if (problem) {
		tally.fail("valid-call", `after ${what}`, problem);
		return `no answer to a valid call after ${what}: ${problem}`;
	}
	tally.validCalls++;
	return undefined;
}

/** The report as text lines. */
export function describe(r: FuzzReport): string[] {
	const t = r.tally;
	const lines = [
		`${r.transport}: seed ${r.seed}, ${t.cases} cases in ${t.batches} batches, ${(r.ms / 1000).toFixed(1)} s; ` +
			`crashes ${t.counts.crash}, hangs ${t.counts.hang}, malformed ${t.counts.malformed}, ` +
			`valid call answered after ${t.validCalls} of ${t.batches} batches (failed ${t.counts["valid-call"]}); ` +
			`integrity ${r.integrity}; written outside the project ${r.outside.length}`,
	];
	for (const [name, m] of Object.entries(r.memory))
		lines.push(`  ${name} RSS: before ${mib(m.before)}, peak ${mib(m.peak)}, after ${mib(m.after)}`);
	lines.push(
		`  cases: ${[...t.kinds]
			.sort((a, b) => b[1] - a[1])
			.map(([k, v]) => `${k} ${v}`)
			.join(", ")}`,
	);
	lines.push(
		`  answers: ${[...t.answers]
			.sort((a, b) => b[1] - a[1])
			.map(([k, v]) => `${k} ${v}`)
			.join(", ")}`,
	);
	const slow = [...t.slowest].sort((a, b) => b[1] - a[1]).slice(0, 6);
	lines.push(`  slowest: ${slow.map(([k, v]) => `${k} ${v.toFixed(0)} ms`).join(", ")}`);
	for (const note of t.notes) lines.push(`  ${note}`);
	for (const f of t.failures) lines.push(`  FAIL ${f.kind} ${f.label}: ${f.detail}`);
	return lines;
}

/** FUZZ_SEED and FUZZ_CASES from the environment, or the defaults (a fixed seed: runs repeat). */
export function fromEnv(defaultCases: number, defaultSeed = 14): { seed: number; cases: number } {
	const seedText = process.env.FUZZ_SEED;
	const casesText = process.env.FUZZ_CASES;
	const seed = seedText ? Number(seedText) >>> 0 : defaultSeed;
	const cases = casesText ? Number(casesText) : defaultCases;
	if (!Number.isSafeInteger(cases) || cases < 0)
		throw new Error(`FUZZ_CASES must be a count, not ${casesText}`);
	return { seed, cases };
}
