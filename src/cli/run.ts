// `roundtable run`: create or resume a run and drive it. With a live owner (`start`) the owner's
// Chair ticks it and this command watches; without one, this process is the owner for its lifetime
// (HTTP, socket, Chair), so stdio clients keep working. Headless runs N ticks, prints where the run
// stands and the open peer questions, and exits; interactive shows the terminal view until q or Ctrl-C.

import { appendFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import type { TickReport } from "../chair/tick.ts";
import { operatorContext } from "../context.ts";
import { call } from "../dispatch.ts";
import { initIfNeeded, writeMcpAssets } from "../init/index.ts";
import { LAYOUT } from "../layout.ts";
import { runOwner, stopSignal } from "../owner/index.ts";
import { findOwner, type OwnerInfo } from "../owner/presence.ts";
import { openRuntime, type Runtime } from "../runtime.ts";
import { callSocket } from "../transports/socket-client.ts";
import type { RunRecord } from "../vocabulary/records.ts";
import { UsageError } from "./args.ts";
import type { CommandRun } from "./command.ts";

const out = (line: string) => process.stdout.write(`${line}\n`);
const err = (line: string) => process.stderr.write(`${line}\n`);

const summary = (run: RunRecord) =>
	`run ${run.id} ${run.status} after ${run.ticks} tick${run.ticks === 1 ? "" : "s"}: ${run.convergence ?? "not ticked yet"}${sessionsNote(run)}`;

/** What the run's sessions came to, when it had any. */
const sessionsNote = (run: RunRecord) =>
	run.sessions_started === 0
		? ""
		: `; ${run.sessions_started} session${run.sessions_started === 1 ? "" : "s"} (${run.sessions_live} live, ${run.sessions_failed} failed, ${run.sessions_given_up} given up)`;

/** Headless, after the summary: the open peer questions, as the view lists them (nothing when none). */
async function printOpenQuestions(rt: Runtime): Promise<void> {
	const { fit, questionLines, readOpenQuestions } = await import("../tui/run-view.ts");
	const questions = await readOpenQuestions(rt.store);
	if (questions.open === 0) return;
	out(`open questions ${questions.open} (oldest first):`);
	for (const line of questionLines(questions)) out(fit(`  ${line}`, 200));
}

const readRun = (rt: Runtime, id: string) =>
	rt.store.withTransaction("read", (tx) => tx.runs.get(id)) as Promise<RunRecord>;

/** Headless beside a live owner: wait until its Chair has ticked the run `iterations` more times. */
async function followOwner(
	rt: Runtime,
	owner: OwnerInfo,
	run: RunRecord,
	iterations: number,
	onInterrupt: () => Promise<void>,
): Promise<RunRecord> {
	const interval = owner.chair_interval_ms as number;
	// Told to go until the run ends (the autopilot), it has no deadline of its own.
	const budgetMs = Number.isFinite(iterations)
		? Math.max(30_000, iterations * interval * 3)
		: Number.POSITIVE_INFINITY;
	const deadline = Date.now() + budgetMs;
	const target = run.ticks + iterations;
	let interrupted = false;
	void stopSignal().then(async () => {
		await onInterrupt();
		interrupted = true;
	});
	for (;;) {
		const now = await readRun(rt, run.id);
		if (now.status !== "active" || now.ticks >= target || interrupted) return now;
		if (Date.now() > deadline) {
			throw new Error(
				`the owner (pid ${owner.pid}) did not tick run ${run.id} ${iterations} times within ${budgetMs / 1000} s`,
			);
		}
		await Bun.sleep(Math.min(100, interval));
	}
}

export const run: CommandRun = {
	async run(flags) {
		const headless = flags.headless === true;
		const autopilot = flags.autopilot === true;
		// With the autopilot, a headless run goes until the run ends (or Ctrl-C), unless told otherwise.
		const iterations =
			(flags["max-iterations"] as number | undefined) ?? (autopilot ? Number.POSITIVE_INFINITY : 1);
		if (iterations < 1) throw new UsageError("--max-iterations must be at least 1");
		const intervalMs = (flags.interval as number | undefined) ?? 1000;
		const report = await initIfNeeded(flags.root);
		if (report) err(`roundtable: initialized ${report.root}`);
		let view: typeof import("../tui/run-view.ts") | undefined;
		if (!headless) {
			view = await import("../tui/run-view.ts");
			if (!view.isInteractive(process.stdin, process.stdout)) {
				throw new UsageError("the interactive view needs a terminal: pass --headless to run without one");
			}
		}

		const rt = openRuntime(flags.root);
		try {
			const { run, action } = await call(
				rt,
				"run.open",
				{
					...(flags.run !== undefined && { run_id: flags.run }),
					...(flags.goal !== undefined && { goal: flags.goal }),
					...(flags.scope !== undefined && {
						scope: String(flags.scope)
							.split(",")
							.map((p) => p.trim())
							.filter(Boolean),
					}),
					...(flags.resume === true && { resume: true }),
					...(autopilot && { autopilot: true }),
				},
				operatorContext("cli"),
			);
			// Ctrl-C on an autopilot run stops its launching and its sessions (run.stop): through the
			// live owner, or in this process's own owner before it drains.
			const stopRun = async () => {
				if (!autopilot) return;
				const path = findOwner(rt.root)?.socket_path;
				const reply = path
					? await callSocket(path, "run.stop", { run_id: run.id }).catch(() => undefined)
					: undefined;
				if (!reply?.ok)
					await call(rt, "run.stop", { run_id: run.id }, operatorContext("cli")).catch(() => {});
				err(
					`roundtable: run ${run.id}: the autopilot stopped; its sessions are stopping (roundtable run --resume --autopilot goes on)`,
				);
			};
			writeMcpAssets(rt.root, rt.config);
			const owner = findOwner(rt.root);
			if (owner && owner.chair_interval_ms === null) {
				throw new Error(
					`the owner (pid ${owner.pid}) runs no Chair (mcp serve): stop it, or run \`roundtable start\``,
				);
			}
			if (headless)
				err(`roundtable: ${action} run ${run.id}${owner ? ` (the owner, pid ${owner.pid}, ticks it)` : ""}`);

			if (owner) {
				if (view) {
					await view.runView({
						rt,
						runId: run.id,
						refreshMs: 1000,
						input: process.stdin,
						output: process.stdout,
						status: () => `owner: pid ${owner.pid}`,
					});
					return 0;
				}
				const after = await followOwner(rt, owner, run, iterations, stopRun);
				out(summary(after));
				await printOpenQuestions(rt);
				return after.status === "failed" ? 1 : 0;
			}

			// No owner: this process is the owner while the run is driven.
			let finish: () => void = () => {};
			const finished = new Promise<void>((resolve) => {
				finish = resolve;
			});
			let ticks = 0;
			const onTick = (r: TickReport) => {
				if (r.run_id !== run.id) return;
				ticks++;
				if (headless && (ticks >= iterations || r.run.status !== "active")) finish();
			};
			const onTickError = (runId: string, failed: boolean) => {
				if (runId === run.id && failed) finish();
			};
			const logFile = join(rt.root, LAYOUT.ownerLog);
			const log = headless
				? err
				: (line: string) => {
						mkdirSync(dirname(logFile), { recursive: true, mode: 0o700 });
						appendFileSync(logFile, `${new Date().toISOString()} ${line}\n`);
					};
			const until = headless
				? Promise.race([
						finished,
						stopSignal().then(async (signal) => {
							await stopRun();
							return signal;
						}),
					])
				: (view as NonNullable<typeof view>).runView({
						rt,
						runId: run.id,
						refreshMs: intervalMs,
						input: process.stdin,
						output: process.stdout,
						status: () => `owner: this process (log: ${LAYOUT.ownerLog})`,
					});
			const code = await runOwner(rt.root, {
				http: true,
				chair: true,
				intervalMs,
				onTick,
				onTickError,
				until,
				ready: log,
				log,
			});
			if (code !== 0) return code;
			const after = await readRun(rt, run.id);
			if (headless) {
				out(summary(after));
				await printOpenQuestions(rt);
			}
			return after.status === "failed" ? 1 : 0;
		} finally {
			rt.close();
		}
	},
};
