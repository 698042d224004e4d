// How soon a waiting peer.wait returns once its answer commits: the answer made by another process
// on the same project (bench/answerer.ts, whose commit it tells this process, the owner here, by a
// datagram: src/os/wake.ts) and by this process (woken directly). The floor beside each: the same
// wake through table.watch, a waiting watch returned by another event (memory.record) committing.
// Also how soon the datagram itself arrives after the other process's commit.
import { join } from "node:path";
import { listenForWakes } from "../src/os/wake.ts";
import { publishOwner } from "../src/owner/presence.ts";
import { VERSION } from "../src/version.ts";
import { fmt, freshProject, percentile, readLine } from "./lib.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 50);
const WARM_UP = 5;
/**
 * Long enough that the waiter is asleep on the commit signal when the answer comes, plus up to 20 ms
 * at random (once the phase of a 20 ms poll; the safety poll's is 1 s).
 */
const settle = () => Bun.sleep(30 + Math.random() * 20);

type Project = Awaited<ReturnType<typeof freshProject>>;
const epochNow = () => performance.timeOrigin + performance.now();

interface Figures {
	p50: number;
	p95: number;
}

function figures(times: number[]): Figures {
	const sorted = [...times].sort((a, b) => a - b);
	return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
}

/** One wake: `wait` starts waiting, `commit` (once it settled) commits and gives when it returned. */
async function timeWakes(
	wait: () => Promise<unknown>,
	commit: () => Promise<number>,
	prepare: () => Promise<void>,
): Promise<Figures> {
	const times: number[] = [];
	for (let i = 0; i < WARM_UP + RUNS; i++) {
		await prepare();
		const returned = wait().then(epochNow);
		await settle();
		const committed = await commit();
		const lag = (await returned) - committed;
		if (i >= WARM_UP) times.push(lag);
	}
	return figures(times);
}

/** A fresh open request each run, and a peer.wait on it. */
function peerWake(p: Project, commitAnswer: (id: string) => Promise<number>) {
	let id = "";
	return timeWakes(
		async () => {
			const out = (await p.call("peer.wait", { request_id: id, wait_ms: 10_000 })) as { timed_out: boolean };
			if (out.timed_out) throw new Error("peer.wait timed out: the answer never woke it");
		},
		() => commitAnswer(id),
		async () => {
			const { request } = (await p.call("peer.ask", {
				agent_id: "implementer-1",
				assignee_agent_id: "implementer-2",
				question_md: "q",
			})) as { request: { id: string } };
			id = request.id;
		},
	);
}

/** A table.watch after the newest event, returned by the next one. */
function watchWake(p: Project, commitEvent: () => Promise<number>) {
	let after = 0;
	return timeWakes(
		async () => {
			const out = (await p.call("table.watch", { after_event_id: after, wait_ms: 10_000 })) as {
				events: unknown[];
			};
			if (out.events.length === 0) throw new Error("table.watch timed out: the event never woke it");
		},
		commitEvent,
		async () => {
			after = ((await p.call("table.get_state", {})) as { last_event_id: number }).last_event_id;
		},
	);
}

const line = (label: string, f: Figures, floor: Figures) =>
	`  ${label.padEnd(44)} p50 ${fmt(f.p50, 2).padStart(6)} ms   p95 ${fmt(f.p95, 2).padStart(6)} ms   (floor p50 ${fmt(floor.p50, 2)} ms, p95 ${fmt(floor.p95, 2)} ms)`;

export async function run(): Promise<void> {
	const p = await freshProject();
	// This process is the owner, as runOwner makes one: it listens for wakes and says where.
	let woke = 0;
	const wakes = await listenForWakes(() => {
		woke = epochNow();
		p.rt.store.othersMayHaveCommitted();
	});
	p.rt.store.othersMayHaveCommitted();
	publishOwner(p.rt.root, {
		pid: process.pid,
		http_url: null,
		socket_path: null,
		chair_interval_ms: null,
		wake_port: wakes.port,
		started_at: new Date().toISOString(),
		version: VERSION,
	});
	const other = Bun.spawn([process.execPath, join(import.meta.dir, "answerer.ts"), p.rt.root], {
		stdin: "pipe",
		stdout: "pipe",
		stderr: "inherit",
	});
	if ((await readLine(other.stdout)) !== "ready") throw new Error("the answering process did not start");
	const inOther = async (tool: string, args: object) => {
		other.stdin.write(`${JSON.stringify({ tool, args })}\n`);
		other.stdin.flush();
		return Number(await readLine(other.stdout));
	};
	const here = async (tool: string, args: object) => {
		await p.call(tool, args);
		return epochNow();
	};
	const answer = (id: string) => ({ agent_id: "implementer-2", request_id: id, answer_md: "a" });
	const memory = { title: "t", body_md: "b", kind: "fact", scope: "project" };

	try {
		console.log(
			`peer.wait woken by its answer's commit: from the answer call's return to the wait's, ${RUNS} runs each:`,
		);
		const otherFloor = await watchWake(p, () => inOther("memory.record", memory));
		console.log(
			line(
				"answer from another process",
				await peerWake(p, (id) => inOther("peer.answer", answer(id))),
				otherFloor,
			),
		);
		// The datagram alone: from the other process's commit to this one hearing of it.
		const heard: number[] = [];
		for (let i = 0; i < WARM_UP + RUNS; i++) {
			woke = 0;
			const committed = await inOther("memory.record", memory);
			while (woke === 0) await Bun.sleep(0);
			if (i >= WARM_UP) heard.push(woke - committed);
			await settle();
		}
		const notified = figures(heard);
		console.log(
			`  ${"the commit's datagram heard by the owner".padEnd(44)} p50 ${fmt(notified.p50, 2).padStart(6)} ms   p95 ${fmt(notified.p95, 2).padStart(6)} ms`,
		);
		const hereFloor = await watchWake(p, () => here("memory.record", memory));
		console.log(
			line("answer from this process", await peerWake(p, (id) => here("peer.answer", answer(id))), hereFloor),
		);
		console.log("  floor: a waiting table.watch woken by a memory.record committing the same way");
	} finally {
		other.stdin.end();
		await other.exited;
		wakes.close();
		p.done();
	}
}

if (import.meta.main) await run();
