// One Chair tick of a run. Each step commits on its own, and a record that makes a step fail
// (a proposal whose patch is missing, say) becomes a `chair.error` event and a log line while the
// tick goes on: no poison pill can stop the loop. Steps, in order: sweep expired claims and turn
// leases, assign open tasks round-robin, schedule the run's next turn, request reviews of pending
// proposals, then check convergence and count the tick.
import { chairContext } from "../context.ts";
import { call } from "../dispatch.ts";
import { nowIso } from "../domain/ids.ts";
import { asToolError } from "../errors.ts";
import type { RunRecord } from "../registry/records.ts";
import type { Runtime } from "../runtime.ts";
import type { Tx } from "../store/index.ts";
import { expireDueClaims } from "../tools/resources.ts";
import { expireTurn, leaseEnd } from "../tools/turns.ts";
import { type Convergence, converge } from "./convergence.ts";

const ASSIGN_CURSOR = "assign.last_agent";
/** implementer-2 before implementer-10. */
const byId = new Intl.Collator("en", { numeric: true }).compare;

export interface TickReport {
	run_id: string;
	expired_claims: number;
	expired_turns: number;
	assigned: { task_id: string; agent_id: string }[];
	scheduled: number | null;
	reviews_requested: string[];
	errors: { step: string; subject: string; message: string }[];
	convergence: Convergence;
	/** The run after this tick: still active, or ended by convergence. */
	run: RunRecord;
}

export interface ChairOptions {
	log: (line: string) => void;
	/** Failures already reported, so a poison record is an event once, not once a tick. */
	reported?: Set<string>;
}

/** The Chair's agent id: the enabled agent with role Chair, or `chair-1`. */
export async function chairId(tx: Tx): Promise<string> {
	const agents = await tx.agents.list();
	return agents.find((a) => a.role === "Chair" && a.enabled)?.id ?? "chair-1";
}

export async function tick(rt: Runtime, runId: string, options: ChairOptions): Promise<TickReport> {
	const { store } = rt;
	const { chair, current } = await store.withTransaction("read", async (tx) => ({
		chair: await chairId(tx),
		current: await tx.runs.get(runId),
	}));
	if (!current) throw new Error(`run ${runId} not found`);
	const errors: TickReport["errors"] = [];
	const idle = { expired_claims: 0, expired_turns: 0, assigned: [], scheduled: null, reviews_requested: [] };
	if (current.status !== "active")
		return { run_id: runId, ...idle, errors, convergence: "run_not_active", run: current };
	const reported = options.reported ?? new Set<string>();

	const fail = async (step: string, subject: string, err: unknown) => {
		const e = asToolError(err);
		errors.push({ step, subject, message: e.message });
		const key = `${runId}|${step}|${subject}|${e.message}`;
		if (reported.has(key)) return;
		reported.add(key);
		options.log(`roundtable chair: run ${runId}: ${step} ${subject} failed: ${e.message}`);
		await store.withTransaction("write", (tx) =>
			tx.events.append(
				{
					type: "chair.error",
					actor_id: chair,
					run_id: runId,
					payload: { step, subject, code: e.code, message: e.message },
				},
				nowIso(),
			),
		);
	};

	// A step that fails is reported and skipped; only if even the report cannot be written (the
	// database is gone) does the tick fail as a whole, and the coordinator retries it.
	const step = async <T>(name: string, skipped: T, fn: () => Promise<T>): Promise<T> => {
		try {
			return await fn();
		} catch (err) {
			await fail(name, runId, err);
			return skipped;
		}
	};

	const expiredClaims = await step("expire_claims", 0, async () => (await expireDueClaims(store)).length);
	const expiredTurns = await step("expire_turns", 0, () =>
		store.withTransaction("write", async (tx) => {
			const now = nowIso();
			const due = (await tx.turns.leaseDue(now)).filter((t) => t.run_id === runId);
			for (const t of due) await expireTurn(tx, t, now, chair);
			return due.length;
		}),
	);
	const assigned = await step("assign_tasks", [], () =>
		store.withTransaction("write", (tx) => assignTasks(tx, runId, chair, nowIso())),
	);
	const scheduled = await step("schedule_turn", null, () =>
		store.withTransaction("write", (tx) =>
			scheduleTurn(tx, runId, chair, rt.config.turns.lease_seconds, nowIso()),
		),
	);

	const reviewsRequested: string[] = [];
	const pending = await step("request_reviews", [], () =>
		store.withTransaction("read", (tx) => tx.proposals.ofRun(runId, ["pending"], true)),
	);
	const ctx = chairContext(chair);
	for (const p of pending) {
		try {
			await call(rt, "proposal.request_review", { proposal_id: p.id }, ctx);
			reviewsRequested.push(p.id);
		} catch (err) {
			await fail("request_review", p.id, err);
		}
	}

	const { convergence, run } = await store.withTransaction("write", (tx) =>
		converge(tx, runId, chair, nowIso()),
	);
	return {
		run_id: runId,
		expired_claims: expiredClaims,
		expired_turns: expiredTurns,
		assigned,
		scheduled,
		reviews_requested: reviewsRequested,
		errors,
		convergence,
		run,
	};
}

/**
 * Open, unassigned tasks of the run (or of no run, which the run then adopts) go round-robin to the
 * enabled implementers. The cursor is the last agent given a task, kept across ticks and restarts.
 */
async function assignTasks(tx: Tx, runId: string, chair: string, now: string) {
	const tasks = await tx.tasks.assignable(runId);
	if (tasks.length === 0) return [];
	const implementers = (await tx.agents.list())
		.filter((a) => a.role === "Implementer" && a.enabled)
		.map((a) => a.id)
		.sort(byId);
	if (implementers.length === 0) return [];
	const last = await tx.chairState.get(ASSIGN_CURSOR);
	// The first implementer after the last one served (ids sort, so a removed agent still has a place).
	let next = implementers.findIndex((id) => last === undefined || byId(id, last) > 0);
	if (next === -1) next = 0;
	const assigned: { task_id: string; agent_id: string }[] = [];
	for (const task of tasks) {
		const agent = implementers[next % implementers.length] as string;
		next++;
		await tx.tasks.update(task.id, { assigned_agent_id: agent, status: "in_progress", run_id: runId }, now);
		await tx.events.append(
			{
				type: "task.assigned",
				actor_id: chair,
				run_id: runId,
				task_id: task.id,
				payload: { task_id: task.id, assigned_agent_id: agent },
			},
			now,
		);
		assigned.push({ task_id: task.id, agent_id: agent });
	}
	await tx.chairState.set(ASSIGN_CURSOR, assigned.at(-1)?.agent_id as string);
	return assigned;
}

/** One turn at a time per run: when none holds the floor, the oldest request gets it. */
async function scheduleTurn(tx: Tx, runId: string, chair: string, leaseSeconds: number, now: string) {
	if (await tx.turns.current(runId)) return null;
	const next = await tx.turns.next(runId);
	if (!next) return null;
	await tx.turns.schedule(next.request_event_id, leaseEnd(now, leaseSeconds), now);
	await tx.events.append(
		{
			type: "agent.turn_scheduled",
			actor_id: chair,
			run_id: runId,
			payload: {
				agent_id: next.agent_id,
				request_event_id: next.request_event_id,
				reason: next.reason_md,
				position: 1,
			},
		},
		now,
	);
	return next.request_event_id;
}
