// The Chair loop inside the owner: every interval it ticks each active run. A run whose tick fails
// as a whole (the database unavailable, say) is retried with backoff — 1, 2, 4, 8 s — and fails
// after MAX_CONSECUTIVE_ERRORS in a row; meanwhile /healthz says degraded.
import { chairContext } from "../context.ts";
import { call } from "../dispatch.ts";
import type { Runtime } from "../runtime.ts";
import { chairId, type TickReport, tick } from "./tick.ts";

export const MAX_CONSECUTIVE_ERRORS = 5;
const BACKOFF_MS = 1000;

export type Health = "ready" | "healthy-idle" | "degraded";

interface Retry {
	attempts: number;
	notBefore: number;
}

export interface CoordinatorOptions {
	intervalMs: number;
	log: (line: string) => void;
	/** Called after every successful tick of a run. */
	onTick?: (report: TickReport) => void;
	/** Called when a run's tick failed; `failed` once the run was given up (status failed). */
	onTickError?: (runId: string, failed: boolean) => void;
}

export class Coordinator {
	private readonly retries = new Map<string, Retry>();
	private readonly reported = new Set<string>();
	private activeRuns = 0;
	private discoveryFailed = false;
	private stopped = false;
	private wake: (() => void) | undefined;
	private loop: Promise<void> | undefined;

	constructor(
		private readonly rt: Runtime,
		private readonly options: CoordinatorOptions,
	) {}

	health(): Health {
		if (this.discoveryFailed || this.retries.size > 0) return "degraded";
		return this.activeRuns === 0 ? "healthy-idle" : "ready";
	}

	/** Ticks now, then every interval, until stop(). */
	start(): void {
		this.loop ??= (async () => {
			while (!this.stopped) {
				await this.cycle();
				if (this.stopped) break;
				await new Promise<void>((resolve) => {
					const timer = setTimeout(resolve, this.options.intervalMs);
					this.wake = () => {
						clearTimeout(timer);
						resolve();
					};
				});
			}
		})();
	}

	/** Finishes the tick in progress, if any, and ticks no more. */
	async stop(): Promise<void> {
		this.stopped = true;
		this.wake?.();
		await this.loop;
	}

	/** One pass over every active run. */
	async cycle(): Promise<void> {
		let runs: string[];
		try {
			runs = (await this.rt.store.withTransaction("read", (tx) => tx.runs.active())).map((r) => r.id);
			if (this.discoveryFailed) this.options.log("roundtable chair: run discovery recovered");
			this.discoveryFailed = false;
		} catch (err) {
			if (!this.discoveryFailed)
				this.options.log(`roundtable chair: run discovery failed; retrying: ${String(err)}`);
			this.discoveryFailed = true;
			return;
		}
		this.activeRuns = runs.length;
		for (const id of this.retries.keys()) if (!runs.includes(id)) this.retries.delete(id);
		for (const runId of runs) {
			if (this.stopped) return;
			const retry = this.retries.get(runId);
			if (retry && Date.now() < retry.notBefore) continue;
			try {
				const report = await tick(this.rt, runId, { log: this.options.log, reported: this.reported });
				if (retry) this.options.log(`roundtable chair: run ${runId} tick recovered`);
				this.retries.delete(runId);
				this.options.onTick?.(report);
			} catch (err) {
				await this.failed(runId, (retry?.attempts ?? 0) + 1, err);
			}
		}
	}

	private async failed(runId: string, attempts: number, err: unknown): Promise<void> {
		const error = err instanceof Error ? err.message : String(err);
		const delay = BACKOFF_MS * 2 ** (attempts - 1);
		const giveUp = attempts >= MAX_CONSECUTIVE_ERRORS;
		this.options.log(
			giveUp
				? `roundtable chair: run ${runId} failed after ${attempts} consecutive tick errors: ${error}`
				: `roundtable chair: run ${runId} tick failed; retry in ${delay / 1000}s: ${error}`,
		);
		if (giveUp) this.retries.delete(runId);
		else this.retries.set(runId, { attempts, notBefore: Date.now() + delay });
		this.options.onTickError?.(runId, giveUp);
		try {
			const chair = await this.rt.store.withTransaction("read", (tx) => chairId(tx));
			await call(
				this.rt,
				"run.tick_failed",
				{
					run_id: runId,
					attempt: attempts,
					max_attempts: MAX_CONSECUTIVE_ERRORS,
					error,
					give_up: giveUp,
					next_retry_delay_ms: giveUp ? 0 : delay,
				},
				chairContext(chair),
			);
		} catch {
			// The database is the likely cause of the failure itself; the log line stands.
		}
	}
}
