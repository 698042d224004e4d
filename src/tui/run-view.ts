// The terminal view of interactive `roundtable run`: one run's state, its counts, its turn queue,
// the latest proposal, transaction, approval and test run, the open peer questions, and its newest
// events, redrawn in place. Headless `run` prints the same open-question lines after its summary.
//
// Plain ANSI, no library: the alternate screen, absolute cursor moves, erase-to-end, the cursor
// hidden and autowrap off while it shows. Each frame is one write (inside a synchronized-update
// bracket where the terminal has it), so nothing flickers, and `bun build --compile` has nothing
// extra to bundle. Rendering (`renderRunView`) is a pure function of a snapshot and a size;
// `readRunSnapshot` reads the snapshot in one read transaction. Imports here are types and the
// status lists only, so loading this module costs next to nothing beyond itself.

import { sleep } from "../os/sleep.ts";
import type { Runtime } from "../runtime.ts";
import type { Store } from "../store/index.ts";
import type { TurnRow } from "../store/turns.ts";
import type {
	ApprovalRecord,
	EventRecord,
	PeerRequestRecord,
	ProposalRecord,
	RunRecord,
	TestRunRecord,
	TransactionRecord,
} from "../vocabulary/records.ts";
import { PROPOSAL_STATUSES, TASK_STATUSES, type TaskStatus } from "../vocabulary/statuses.ts";

/** Everything the view shows, read in one transaction. */
export interface RunSnapshot {
	runId: string;
	/** Undefined when there is no such run. */
	run: RunRecord | undefined;
	/** The run's tasks by status (the scope convergence uses). */
	tasks: Record<TaskStatus, number>;
	/** The run's proposals (recorded in it, or of its tasks) waiting for a decision. */
	proposals: { pending: number; in_review: number };
	/** Table-wide: enabled agents, live claims (active unexpired, suspended), requested approvals. */
	agentsEnabled: number;
	claims: { active: number; suspended: number };
	approvalsRequested: number;
	/** The run's newest proposal; the table's newest transaction and approval. */
	latestProposal: ProposalRecord | undefined;
	latestTransaction: TransactionRecord | undefined;
	latestApproval: ApprovalRecord | undefined;
	/** The table's newest test run. */
	latestTestRun: TestRunRecord | undefined;
	/** Table-wide: open peer questions, and the oldest few of them. */
	questions: OpenQuestions;
	/** The run's outstanding turn requests, oldest first. */
	turns: TurnRow[];
	/** The run's newest events, oldest first. */
	events: EventRecord[];
	/** The newest event id of the whole table. */
	lastEventId: number;
	/** When the snapshot was read (RFC 3339). */
	readAt: string;
}

export interface OpenQuestions {
	open: number;
	/** Oldest first, at most OLDEST_QUESTIONS. */
	oldest: PeerRequestRecord[];
}

/** How many of the oldest open questions the view lists. */
export const OLDEST_QUESTIONS = 3;

/** The open peer questions: how many, and the oldest few. */
export async function readOpenQuestions(store: Store): Promise<OpenQuestions> {
	return store.withTransaction("read", async (tx) => ({
		open: await tx.peers.countByStatus("open"),
		oldest: await tx.peers.list({ status: "open" }, undefined, OLDEST_QUESTIONS),
	}));
}

/** Reads what the view shows in one read transaction; `events` is how many of the newest to read. */
export function readRunSnapshot(store: Store, runId: string, events: number): Promise<RunSnapshot> {
	return store.withTransaction("read", async (tx) => {
		const now = new Date().toISOString();
		const counts = await tx.tasks.statusCounts(runId);
		const proposals = await tx.proposals.ofRun(runId, PROPOSAL_STATUSES);
		const approvals = await tx.approvals.list({});
		return {
			runId,
			run: await tx.runs.get(runId),
			tasks: Object.fromEntries(TASK_STATUSES.map((st) => [st, counts[st] ?? 0])) as RunSnapshot["tasks"],
			proposals: {
				pending: proposals.filter((p) => p.status === "pending").length,
				in_review: proposals.filter((p) => p.status === "in_review").length,
			},
			agentsEnabled: await tx.agents.countEnabled(),
			claims: {
				active: await tx.claims.countByStatus("active", now),
				suspended: await tx.claims.countByStatus("suspended", now),
			},
			approvalsRequested: approvals.filter((a) => a.status === "requested").length,
			latestProposal: proposals.at(-1),
			latestTransaction: (await tx.transactions.tail(1)).at(-1),
			latestApproval: approvals.at(-1),
			latestTestRun: (await tx.testRuns.list({}, 1))[0],
			questions: {
				open: await tx.peers.countByStatus("open"),
				oldest: await tx.peers.list({ status: "open" }, undefined, OLDEST_QUESTIONS),
			},
			turns: await tx.turns.queue(runId),
			events: await tx.events.newest(runId, Math.max(1, Math.min(events, 500))),
			lastEventId: await tx.events.lastId(),
			readAt: now,
		};
	});
}

export interface RenderOptions {
	width: number;
	height: number;
	/** Shown in the footer, e.g. "owner: this process". */
	status?: string;
	/** Shown in the footer, e.g. why the last refresh failed. */
	notice?: string;
}

/** Control characters (C0, DEL, C1) never reach the terminal: stored text could hold escapes. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

/** Display width of a string (wide characters count 2). */
const widthOf = (s: string): number => Bun.stringWidth(s);

/** One line that fits `width` columns: control characters become spaces, overflow ends in `~`. */
export function fit(text: string, width: number): string {
	if (width <= 0) return "";
	const s = text.replace(CONTROL, " ");
	if (widthOf(s) <= width) return s;
	let out = "";
	let used = 0;
	for (const ch of s) {
		const w = widthOf(ch);
		if (used + w > width - 1) break;
		out += ch;
		used += w;
	}
	return `${out}~`;
}

const rule = (title: string, width: number) => {
	const head = `-- ${title} `;
	return head + "-".repeat(Math.max(0, width - head.length));
};

/** Local HH:MM:SS of an RFC 3339 timestamp. */
const clock = (iso: string | null | undefined) => {
	if (!iso) return "-";
	const d = new Date(iso);
	return Number.isNaN(d.getTime()) ? "-" : d.toTimeString().slice(0, 8);
};

const pad = (s: string, n: number) => s + " ".repeat(Math.max(0, n - s.length));

/** `<id> <type> <actor> <task or ->`, in aligned columns. */
function eventLines(events: EventRecord[]): string[] {
	const idW = Math.max(0, ...events.map((e) => String(e.id).length));
	const typeW = Math.min(28, Math.max(0, ...events.map((e) => e.type.length)));
	const actorW = Math.min(20, Math.max(0, ...events.map((e) => e.actor_id.length)));
	return events.map(
		(e) =>
			`${String(e.id).padStart(idW)} ${pad(e.type, typeW)} ${pad(e.actor_id, actorW)} ${e.task_id ?? "-"}`,
	);
}

function turnLines(turns: TurnRow[]): string[] {
	const agentW = Math.min(24, Math.max(0, ...turns.map((t) => t.agent_id.length)));
	const posW = String(turns.length).length;
	return turns.map(
		(t, i) =>
			`${String(i + 1).padStart(posW)} ${pad(t.agent_id, agentW)} ${pad(t.status, 9)} request ${t.request_event_id}`,
	);
}

/** `<id> <from> → <to>: <first line>`, oldest first; "and N more" when there are more open. */
export function questionLines(q: OpenQuestions): string[] {
	const firstLine = (md: string) =>
		md
			.split("\n")
			.find((l) => l.trim() !== "")
			?.trim() ?? "";
	const lines = q.oldest.map(
		(r) => `${r.id} ${r.requester_id} → ${r.assignee_id}: ${firstLine(r.question_md)}`,
	);
	if (q.open > q.oldest.length) lines.push(`(+${q.open - q.oldest.length} more)`);
	return lines;
}

function latestLines(s: RunSnapshot): string[] {
	const p = s.latestProposal;
	const x = s.latestTransaction;
	const a = s.latestApproval;
	const t = s.latestTestRun;
	return [
		p
			? `proposal  ${p.id} [${p.status}] ${p.agent_id} task ${p.task_id} r${p.patch_revision}: ${p.title}`
			: "proposal  - (none in this run)",
		x
			? `tx        ${x.id} ${x.kind} ${x.status} ${x.proposal_id} by ${x.applied_by} at ${clock(x.applied_at)}`
			: "tx        - (none)",
		a
			? `approval  ${a.id} [${a.status}] ${a.proposal_id ?? a.task_id ?? "-"}: ${a.subject}${a.decided_by ? ` (by ${a.decided_by})` : ""}`
			: "approval  - (none)",
		t
			? `test      ${t.id} [${t.status}] ${t.proposal_id === null ? "project" : `${t.proposal_id}@r${t.patch_revision}`}: ${t.command}`
			: "test      - (none)",
	];
}

/**
 * The view as lines: at most `height` of them, none wider than `width` columns, no control
 * characters. The header (the run; its Chair state; its tasks and proposals, the scope convergence
 * uses; then table-wide agents, live claims, requested approvals and open questions) and the footer
 * always; between them the latest records, the oldest open questions, the turn queue and as many of
 * the newest events as fit (the latest records give way first, then the turn queue shrinks to one
 * line and the questions to one, then the turn queue goes, then the questions; the events take the
 * rest).
 */
export function renderRunView(s: RunSnapshot, size: RenderOptions): string[] {
	const width = Math.max(0, Math.floor(size.width));
	const height = Math.max(0, Math.floor(size.height));
	if (height === 0 || width === 0) return [];
	const r = s.run;
	const t = s.tasks;
	const claims = s.claims.active + s.claims.suspended;
	const header = [
		r ? `Roundtable run ${r.id} [${r.status}]` : `Roundtable run ${s.runId}: no such run`,
		`goal       ${r?.goal || "(none)"}`,
		`chair      ticks ${r?.ticks ?? 0}, last ${clock(r?.last_tick_at)}, convergence ${r?.convergence ?? "-"}`,
		`tasks      open ${t.open} | in progress ${t.in_progress} | review ${t.review} | blocked ${t.blocked} | done ${t.done}` +
			(t.failed ? ` | failed ${t.failed}` : "") +
			(t.cancelled ? ` | cancelled ${t.cancelled}` : ""),
		`proposals  pending ${s.proposals.pending} | in review ${s.proposals.in_review}`,
		`table      agents enabled ${s.agentsEnabled} | claims live ${claims}` +
			(s.claims.suspended ? ` (${s.claims.suspended} suspended)` : "") +
			` | approvals requested ${s.approvalsRequested}` +
			(s.questions.open ? ` | questions open ${s.questions.open}` : ""),
	];
	const footer = [
		"q quit",
		size.status,
		`updated ${clock(s.readAt)}`,
		`last event ${s.lastEventId}`,
		size.notice,
	]
		.filter((x): x is string => Boolean(x))
		.join(" | ");

	// Room between header and footer, shared out so that the rule and at least one event show: the
	// latest records give way first, then the turn queue shrinks to one line, the questions to the
	// oldest (their rule keeps the count), then the turn queue goes, then the questions.
	const room = height - header.length - 1;
	const MIN_EVENTS = 2;
	const turns = turnLines(s.turns);
	let latest: string[] = [rule("latest", width), ...latestLines(s)];
	let questions =
		s.questions.open === 0
			? []
			: [rule(`open questions (${s.questions.open}, oldest first)`, width), ...questionLines(s.questions)];
	let turnCap = Math.max(1, Math.min(turns.length, Math.floor(room / 4)));
	const turnBlock = () => {
		const block = [
			rule(`turn queue (${s.turns.length})`, width),
			...(turns.length === 0 ? ["(empty)"] : turns.slice(0, turnCap)),
		];
		if (turns.length > turnCap) block[block.length - 1] += `   (+${turns.length - turnCap} more)`;
		return block;
	};
	let turnsShown = turnBlock();
	const left = () => room - latest.length - questions.length - turnsShown.length;
	if (left() < MIN_EVENTS) latest = [];
	if (left() < MIN_EVENTS) {
		turnCap = 1;
		turnsShown = turnBlock();
	}
	if (left() < MIN_EVENTS) questions = questions.slice(0, 2);
	if (left() < MIN_EVENTS) turnsShown = [];
	if (left() < MIN_EVENTS) questions = [];
	const eventRoom = left() - 1;
	const shown = Math.min(Math.max(0, eventRoom), s.events.length);
	const events =
		eventRoom > 0
			? [
					rule(`events of the run (newest last, ${shown === 0 ? "none yet" : `${shown} shown`})`, width),
					...eventLines(s.events.slice(-eventRoom)),
				]
			: [];

	const body = [...header, ...latest, ...questions, ...turnsShown, ...events];
	const lines = height > 1 ? [...body.slice(0, height - 1), footer] : [footer];
	return lines.map((line) => fit(line, width));
}

export type RunViewResult = "quit" | "aborted";

export interface RunViewOptions {
	rt: Runtime;
	runId: string;
	/** How often to re-read at most this long apart; commits wake it earlier (never within 100 ms). */
	refreshMs: number;
	input: NodeJS.ReadStream;
	output: NodeJS.WriteStream;
	/** Ends the view ("aborted"). */
	signal?: AbortSignal;
	/** A line for the footer, asked on every redraw, e.g. "owner: pid 123". */
	status?: () => string;
}

/** No redraw sooner than this after the previous read began, however busy the table is. */
export const MIN_REFRESH_MS = 100;

/** Whether the view can run here: both ends a terminal that can do cursor addressing. */
export function isInteractive(
	input: NodeJS.ReadStream,
	output: NodeJS.WriteStream,
	env: Record<string, string | undefined> = process.env,
): boolean {
	return (
		input.isTTY === true &&
		output.isTTY === true &&
		typeof input.setRawMode === "function" &&
		env.TERM !== "dumb"
	);
}

const ESC = "\x1b[";
const ENTER = `${ESC}?1049h${ESC}?25l${ESC}?7l${ESC}2J`; // alternate screen, cursor hidden, no autowrap
const LEAVE = `${ESC}?7h${ESC}?25h${ESC}?1049l`; // autowrap, cursor shown, main screen back
const SYNC_BEGIN = `${ESC}?2026h`;
const SYNC_END = `${ESC}?2026l`;
const QUIT_KEYS = new Set(["q", "Q", "\x03"]); // \x03: Ctrl-C, which raw mode delivers as a byte

/**
 * Shows the run until `q` or Ctrl-C ("quit"), or SIGTERM, SIGHUP, `signal` or a terminal that went
 * away ("aborted"). The terminal is restored in every case: raw mode as it was, the cursor shown,
 * the main screen back. The caller checks `isInteractive` first.
 */
export async function runView(options: RunViewOptions): Promise<RunViewResult> {
	const { rt, runId, input, output } = options;
	const refreshMs = Math.max(MIN_REFRESH_MS, options.refreshMs);
	if (typeof input.setRawMode !== "function" || !output.isTTY) {
		throw new Error("the run view needs a terminal on both stdin and stdout (see isInteractive)");
	}
	if (options.signal?.aborted) return "aborted";

	let result: RunViewResult | undefined;
	// `wake` ends the current wait early (a resize, the end); `stop` only the end.
	let wake = new AbortController();
	const stop = new AbortController();
	const finish = (r: RunViewResult) => {
		result ??= r;
		wake.abort();
		stop.abort();
	};

	let snapshot: RunSnapshot | undefined;
	let notice: string | undefined;
	let previous = "";
	let clear = true;
	const size = () => ({ width: output.columns || 80, height: output.rows || 24 });
	const write = (text: string) => {
		try {
			output.write(text);
		} catch {
			finish("aborted");
		}
	};
	const draw = () => {
		if (result) return;
		const { width, height } = size();
		let status: string | undefined;
		try {
			status = options.status?.();
		} catch (err) {
			status = `status failed: ${(err as Error).message}`;
		}
		const lines = snapshot
			? renderRunView(snapshot, { width, height, status, notice })
			: [fit(`Roundtable run ${runId}: reading…`, width)];
		// Each row is placed absolutely and erased only after its text when the text is shorter
		// than the row (erasing at the right margin would eat the last character).
		let frame = clear ? `${ESC}2J` : "";
		lines.forEach((line, i) => {
			frame += `${ESC}${i + 1};1H${line}${widthOf(line) < width ? `${ESC}K` : ""}`;
		});
		if (lines.length < height) frame += `${ESC}${lines.length + 1};1H${ESC}J`;
		if (frame === previous) return;
		previous = frame;
		clear = false;
		write(SYNC_BEGIN + frame + SYNC_END);
	};

	const onData = (chunk: Buffer | string) => {
		const text = typeof chunk === "string" ? chunk : chunk.toString("latin1");
		for (const ch of text) if (QUIT_KEYS.has(ch)) return finish("quit");
	};
	const onResize = () => {
		clear = true;
		previous = "";
		draw();
		wake.abort(); // read again: a taller terminal has room for more events
	};
	const onSigint = () => finish("quit");
	const onAbortSignal = () => finish("aborted");
	const onOutputError = () => finish("aborted");
	const restoreAtExit = () => {
		try {
			output.write(LEAVE);
		} catch {}
	};

	const wasRaw = input.isRaw;
	const wasFlowing = input.readableFlowing === true;
	input.setRawMode(true);
	input.on("data", onData);
	input.resume();
	output.on("resize", onResize);
	output.on("error", onOutputError);
	process.on("SIGINT", onSigint);
	process.on("SIGTERM", onAbortSignal);
	process.on("SIGHUP", onAbortSignal);
	process.on("exit", restoreAtExit);
	options.signal?.addEventListener("abort", onAbortSignal, { once: true });
	write(ENTER);

	try {
		while (!result) {
			const began = performance.now();
			wake = new AbortController();
			try {
				snapshot = await readRunSnapshot(rt.store, runId, size().height);
				notice = undefined;
			} catch (err) {
				notice = `refresh failed: ${(err as Error).message}`;
			}
			if (result) break;
			draw();
			// A resize during the read already asked for another one.
			if (!wake.signal.aborted) await rt.store.eventsCommitted(refreshMs, wake.signal);
			const since = performance.now() - began;
			if (!result && since < MIN_REFRESH_MS) await sleep(MIN_REFRESH_MS - since, stop.signal);
		}
	} finally {
		options.signal?.removeEventListener("abort", onAbortSignal);
		process.off("SIGINT", onSigint);
		process.off("SIGTERM", onAbortSignal);
		process.off("SIGHUP", onAbortSignal);
		process.off("exit", restoreAtExit);
		output.off("resize", onResize);
		input.off("data", onData);
		try {
			input.setRawMode(wasRaw);
		} catch {}
		if (!wasFlowing) input.pause();
		restoreAtExit();
		output.off("error", onOutputError);
	}
	return result ?? "aborted";
}
