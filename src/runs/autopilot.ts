// chair.launch_sessions, the autopilot's step of the Chair's tick: which headless sessions the run
// needs now, each a recorded decision (an `autopilot.launch` event naming why). In order of what
// unblocks the most: reviewers for a proposal in review (distinct agents other than its author, up
// to the policy's quorum, and the roles it requires) and a tester where the policy wants tests and
// none passed, then an implementer for each open task with nobody at it, then the Architect for a
// goal with no tasks yet. Bounded: chair.max_sessions live at once (the rest wait for a later tick,
// oldest first), run.max_sessions_total in all and run.max_wall_seconds, reaching either of which
// pauses the autopilot with an `autopilot.paused` event. The owner starts what this returns
// (src/chair/tick.ts); nothing here starts a process.
import { actorId } from "../context.ts";
import { type DecisionEvidence, evaluationInput, gatherDecisionEvidence } from "../gates/evidence.ts";
import type { Env } from "../handlers/env.ts";
import { requireRun } from "../handlers/records.ts";
import { evaluate, reviewRoles } from "../policy/index.ts";
import { parsedPatch, type ReviewInputs, reviewPolicy } from "../proposals/review.ts";
import { type Args, findTool } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import type { SessionRow } from "../store/sessions.ts";

/** The roles that may vote on a proposal: those vote.cast grants. */
const VOTERS = (() => {
	const access = findTool("vote.cast")?.access;
	return access === undefined || access === "every" ? [] : Object.keys(access).map((r) => r.toLowerCase());
})();

export interface Launch {
	agent_id: string;
	task_id?: string;
	proposal_id?: string;
	run_id: string;
	why: string;
}

/** The in-review proposals of the run with their policy and patch, read outside the transaction. */
export type ReviewsNeeded = { proposal_id: string; inputs: ReviewInputs | undefined }[];

export async function prepareLaunches(a: Args<"chair.launch_sessions">, env: Env): Promise<ReviewsNeeded> {
	const { rt } = env;
	const open = await rt.store.withTransaction("read", (tx) =>
		tx.proposals.ofRun(a.run_id, ["in_review"], true),
	);
	if (open.length === 0) return [];
	let policy: ReviewInputs["policy"] | undefined;
	try {
		policy = reviewPolicy(rt);
	} catch {
		policy = undefined; // request_reviews reports a policy that does not load
	}
	return open.map((p) => ({
		proposal_id: p.id,
		inputs: policy && {
			policy,
			patch_revision: p.patch_revision,
			parsed: parsedPatch(rt.root, p.patch_sha256),
		},
	}));
}

export async function launchSessions(
	tx: Tx,
	a: Args<"chair.launch_sessions">,
	env: Env,
	reviews: ReviewsNeeded,
) {
	const { rt, now } = env;
	const { chair, run: bounds } = rt.config;
	let run = await requireRun(tx, a.run_id);
	const none = { launch: [] as Launch[], paused: null as string | null };
	// Driven by its own switch, or by chair.autopilot for every run.
	if (run.status !== "active" || (run.autopilot === "off" && !chair.autopilot)) return none;
	const event = (type: string, payload: Record<string, unknown>, task_id: string | null = null) =>
		tx.events.append({ type, actor_id: actorId(env.ctx), run_id: run.id, task_id, payload }, now);

	// The bounds: a pause says why once; launching goes on when the bound no longer holds (the
	// operator raised it) or after `run --autopilot` again.
	const total = await tx.sessions.supervisedOfRun(run.id);
	const age = (Date.parse(now) - Date.parse(run.started_at)) / 1000;
	const paused =
		total >= bounds.max_sessions_total
			? `run.max_sessions_total reached: ${total} sessions started`
			: age >= bounds.max_wall_seconds
				? `run.max_wall_seconds reached: the run began ${Math.floor(age)} s ago`
				: null;
	if (paused !== null) {
		if (run.autopilot !== "paused" || run.autopilot_note !== paused) {
			run = await tx.runs.setAutopilot(run.id, "paused", paused, now);
			await event("autopilot.paused", { run_id: run.id, why: paused });
		}
		return { launch: [], paused };
	}
	if (run.autopilot === "paused") {
		run = await tx.runs.setAutopilot(run.id, "on", null, now);
		await event("autopilot.resumed", { run_id: run.id });
	}

	const live = await tx.sessions.live(now);
	const launched = live.filter((s) => s.mcp_socket !== null).length;
	// Room now: live sessions within chair.max_sessions, and starts within run.max_sessions_total.
	let free = Math.min(chair.max_sessions - launched, bounds.max_sessions_total - total);
	if (free <= 0) return none;
	const agents = (await tx.agents.list()).filter((x) => x.enabled);
	const busy = (agent: string, bound: (s: SessionRow) => boolean) =>
		live.some((s) => s.agent_id === agent && bound(s));
	const launch: Launch[] = [];
	const take = (l: Launch, task: string | null) => {
		launch.push(l);
		free--;
		return event("autopilot.launch", { ...l }, task);
	};

	// Reviewers for each proposal in review, oldest first.
	for (const { proposal_id, inputs } of reviews) {
		if (free <= 0) break;
		if (!inputs) continue;
		const p = await tx.proposals.get(proposal_id);
		if (p?.status !== "in_review" || p.patch_revision !== inputs.patch_revision) continue;
		const evidence: DecisionEvidence = await gatherDecisionEvidence(tx, p, agents);
		const input = evaluationInput(evidence, inputs.parsed);
		const verdict = evaluate(inputs.policy, input);
		// Who voted, and whose session for it was given up (started again, it would fare no better).
		const gaveUp = await tx.sessions.gaveUpOn(p.id);
		const voted = new Set([...evidence.votes.map((v) => v.agent_id), ...gaveUp]);
		const reviewing = live.filter((s) => s.proposal_id === p.id).map((s) => s.agent_id);
		// Who may vote on it: any voting role but its author and who voted; the roles the policy asks
		// to review it first (each required role not yet approved before all), then the others, so the
		// default pool (one Reviewer) still meets the default quorum of two with the Architect.
		const roles = reviewRoles(inputs.policy, input).map((r) => r.toLowerCase());
		const missing = verdict.missing_roles.map((r) => r.toLowerCase());
		const rank = (role: string) => (missing.includes(role) ? 0 : roles.includes(role) ? 1 : 2);
		const pool = agents
			.filter((x) => x.id !== p.agent_id && VOTERS.includes(x.role.toLowerCase()) && !voted.has(x.id))
			.sort((x, y) => rank(x.role.toLowerCase()) - rank(y.role.toLowerCase()));
		// Enough for the quorum (votes cast, and sessions at work now), and each required role not yet approved.
		let short = verdict.approvals_required - verdict.approvals - reviewing.length;
		// A quorum no pool of agents can meet is said once, and no voter is started for it in vain.
		const noteKey = `autopilot.quorum_unreachable:${p.id}:${p.patch_revision}`;
		if (verdict.approvals + reviewing.length + pool.length < verdict.approvals_required) {
			if ((await tx.chairState.get(noteKey)) === undefined) {
				const lost = gaveUp.length > 0 ? ` (${gaveUp.join(", ")} gave up on it)` : "";
				const why = `proposal ${p.id} needs ${verdict.approvals_required} approvals, and only ${verdict.approvals + reviewing.length + pool.length} agents could give one${lost}: add reviewers (agents.reviewers.count) or lower the quorum`;
				await tx.chairState.set(noteKey, now);
				run = await tx.runs.setAutopilot(run.id, run.autopilot === "off" ? "off" : "on", why, now);
				await event("autopilot.quorum_unreachable", { run_id: run.id, proposal_id: p.id, why }, p.task_id);
			}
			continue;
		}
		for (const x of pool) {
			if (free <= 0) break;
			const role = x.role.toLowerCase();
			const needed = missing.includes(role) || short > 0;
			if (!needed || reviewing.includes(x.id) || busy(x.id, (s) => s.proposal_id === p.id)) continue;
			const why = missing.includes(role)
				? `proposal ${p.id} needs the ${x.role} role's approval`
				: `proposal ${p.id} has ${verdict.approvals} of ${verdict.approvals_required} approvals`;
			await take({ agent_id: x.id, proposal_id: p.id, run_id: run.id, why }, p.task_id);
			reviewing.push(x.id);
			short--;
			if (missing.includes(role)) missing.splice(missing.indexOf(role), 1);
		}
		// A tester where the policy wants tests and none passed yet: once per revision (a failing run
		// is for the author to fix, not for another tester).
		const tests = verdict.gates.find((g) => g.gate === "tests");
		const testerKey = `autopilot.tester:${p.id}:${p.patch_revision}`;
		const tester = agents.find((x) => x.role === "Tester" && x.id !== p.agent_id);
		// Not while the tester is at it already (as a voter, say): its key is set only when it starts.
		if (
			free > 0 &&
			tests &&
			!tests.ok &&
			tester &&
			!reviewing.includes(tester.id) &&
			(await tx.chairState.get(testerKey)) === undefined
		) {
			await tx.chairState.set(testerKey, now);
			await take(
				{
					agent_id: tester.id,
					proposal_id: p.id,
					run_id: run.id,
					why: `proposal ${p.id} needs a passing test run: ${tests.reason}`,
				},
				p.task_id,
			);
		}
	}

	// An implementer for each open task with nobody at it and no proposal pending or applied.
	const tasks = await tx.tasks.list({ run_id: run.id, status: "open" }, undefined, 1000);
	for (const t of tasks) {
		if (free <= 0) break;
		const agent = agents.find((x) => x.id === t.assigned_agent_id);
		if (!agent || busy(agent.id, (s) => s.task_id === t.id)) continue;
		const latest = await tx.proposals.latestForTask(t.id);
		if (latest && ["pending", "in_review", "accepted"].includes(latest.status)) continue;
		await take(
			{
				agent_id: agent.id,
				task_id: t.id,
				run_id: run.id,
				why: `task ${t.id} is open and assigned to ${agent.id}`,
			},
			t.id,
		);
	}

	// A goal with no tasks yet: the Architect, bound to the run, proposes them (once per run).
	const counts = await tx.tasks.statusCounts(run.id);
	const anyTask = Object.values(counts).some((n) => (n ?? 0) > 0);
	const architect = agents.find((x) => x.role === "Architect");
	if (
		free > 0 &&
		!anyTask &&
		run.goal.trim() !== "" &&
		architect &&
		!(await tx.sessions.hadRunSession(architect.id, run.id))
	)
		await take(
			{ agent_id: architect.id, run_id: run.id, why: `run ${run.id} has a goal and no tasks yet` },
			null,
		);
	return { launch, paused: null };
}
