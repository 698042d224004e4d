// One Chair tick of a run. Each step is one call that commits once for all its records, and a record
// that makes a step fail (a proposal whose review cannot be requested, say) becomes a `chair.error`
// event and a log line while the tick goes on: no poison pill can stop the loop. Steps, in order:
// sweep expired claims and turn leases, assign open tasks round-robin, schedule the run's next turn,
// request reviews of pending proposals, start the sessions the autopilot decides on (src/runs/
// autopilot.ts) and apply what passed every gate, then check convergence and count the tick.
import { chairContext } from "../context.ts";
import { call } from "../dispatch.ts";
import type { Convergence } from "../domain/convergence.ts";
import { asToolError, ToolError } from "../errors.ts";
import type { Runtime } from "../runtime.ts";
import type { Tx } from "../store/index.ts";
import type { RunRecord } from "../vocabulary/records.ts";

export interface TickReport {
	run_id: string;
	expired_claims: number;
	expired_turns: number;
	assigned: { task_id: string; agent_id: string }[];
	scheduled: number | null;
	reviews_requested: string[];
	/** Sessions the autopilot started this tick, and why it launches nothing for now (null: it does not pause). */
	launched: string[];
	autopilot_paused: string | null;
	/** Proposals the Chair applied under the autopilot this tick, every gate passing. */
	applied: string[];
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
	const idle = {
		expired_claims: 0,
		expired_turns: 0,
		assigned: [],
		scheduled: null,
		reviews_requested: [],
		launched: [],
		autopilot_paused: null,
		applied: [],
	};
	if (current.status !== "active")
		return { run_id: runId, ...idle, errors, convergence: "run_not_active", run: current };
	const reported = options.reported ?? new Set<string>();
	// Every change the tick makes is a call through the dispatcher, as the Chair.
	const ctx = chairContext(chair);
	const run_id = runId;

	const fail = async (step: string, subject: string, err: unknown) => {
		const e = asToolError(err);
		errors.push({ step, subject, message: e.message });
		const key = `${runId}|${step}|${subject}|${e.message}`;
		if (reported.has(key)) return;
		reported.add(key);
		options.log(`roundtable chair: run ${runId}: ${step} ${subject} failed: ${e.message}`);
		await call(rt, "chair.report_error", { run_id, step, subject, code: e.code, message: e.message }, ctx);
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

	// Claims and turn leases expire in one call: one commit.
	const expired = await step("expire", { expired_claims: 0, expired_turns: 0 }, () =>
		call(rt, "chair.expire", { run_id }, ctx),
	);
	const { assigned } = await step("assign_tasks", { assigned: [] }, () =>
		call(rt, "chair.assign_tasks", { run_id }, ctx),
	);
	const { scheduled } = await step("schedule_turn", { scheduled: null }, () =>
		call(rt, "chair.schedule_turn", { run_id }, ctx),
	);

	// Every pending proposal in one call: the policy and each patch read once, one commit.
	const reviews = await step("request_reviews", { requested: [], failed: [] }, () =>
		call(rt, "chair.request_reviews", { run_id }, ctx),
	);
	for (const f of reviews.failed)
		await fail("request_review", f.proposal_id, new ToolError(f.code, f.message));

	// The autopilot: the sessions the run needs, decided (and recorded) in one call, then started
	// here in the owner, which alone runs headless sessions. A run it does not drive costs nothing.
	const none = { launch: [], paused: null };
	const driven = current.autopilot !== "off" || rt.config.chair.autopilot;
	const { launch, paused } = driven
		? await step("launch_sessions", none, () => call(rt, "chair.launch_sessions", { run_id }, ctx))
		: none;
	const launched: string[] = [];
	for (const l of launch) {
		const subject = `${l.agent_id} for ${l.proposal_id ?? l.task_id ?? l.run_id}`;
		try {
			if (!rt.sessions) throw new ToolError("failed_precondition", "only the owner starts sessions");
			launched.push(
				await rt.sessions.start({
					agent: l.agent_id,
					binding: {
						run_id: l.run_id,
						...(l.task_id !== undefined && { task_id: l.task_id }),
						...(l.proposal_id !== undefined && { proposal_id: l.proposal_id }),
					},
				}),
			);
		} catch (err) {
			await fail("launch_session", subject, err);
		}
	}

	/** A proposal the policy wants a human to approve: asked once for its revision, unless asked already. */
	async function askHuman(p: { id: string; title: string; patch_revision: number }, summary: string) {
		const asked = await store.withTransaction("read", (tx) => tx.approvals.list({ proposal_id: p.id }));
		if (asked.some((a) => a.patch_revision === p.patch_revision)) return;
		await call(
			rt,
			"human.request_approval",
			{
				proposal_id: p.id,
				subject: `Apply ${p.title}`,
				reason_md: `The policy wants a human's approval of revision ${p.patch_revision}: ${summary}`,
				requested_by: chair,
			},
			ctx,
		);
	}

	// Under the autopilot the Chair also applies what the governance approved: each proposal in review
	// whose every gate passes (votes, roles, tests, security, a human's approval where required).
	const applied: string[] = [];
	if (driven) {
		const ready = await step("apply", [], () =>
			store.withTransaction("read", (tx) => tx.proposals.ofRun(run_id, ["in_review"], true)),
		);
		for (const p of ready) {
			try {
				const check = await call(rt, "patch.validate", { proposal_id: p.id }, ctx);
				if (check.approvable) {
					await call(rt, "patch.apply", { proposal_id: p.id, applied_by: chair }, ctx);
					applied.push(p.id);
				} else if (check.policy?.human_approval_required) await askHuman(p, check.policy.summary);
			} catch (err) {
				await fail("apply", p.id, err);
			}
		}
	}

	const { convergence, run } = await call(rt, "run.converge", { run_id }, ctx);

	return {
		run_id: runId,
		...expired,
		assigned,
		scheduled,
		reviews_requested: reviews.requested,
		launched,
		autopilot_paused: paused,
		applied,
		errors,
		convergence,
		run,
	};
}
