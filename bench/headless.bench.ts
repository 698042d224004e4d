// Headless sessions in the owner (`session.start` through the owner's socket, as `sessions start` calls it):
// how long the call takes to answer, how long from the call until the agent's first tools/list is
// answered through its session's socket, and the CPU the owner itself spends per session (from the
// start to the session closed: mint, folder, sandbox, transcript, the socket's calls, close), in
// bubblewrap and with sessions.sandbox off. The floor: the same agent started directly by this
// process, to its first line.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callSocket } from "../src/transports/socket-client.ts";
import { SESSION_CHILD as CHILD, fmt, initOnAnyPort, median, startOwner } from "./lib.ts";

const RUNS = Number(process.env.BENCH_RUNS ?? 10);

/** The owner's own CPU time so far, in ms (utime + stime; its children not counted). */
function cpuMs(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
	const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
	return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
	const deadline = Date.now() + ms;
	while (!check()) {
		if (Date.now() > deadline) throw new Error(`headless bench: ${what} did not happen in ${ms} ms`);
		await Bun.sleep(2);
	}
}

export async function run(): Promise<void> {
	const project = mkdtempSync(join(tmpdir(), "rt-bench-headless-"));
	const scripts = mkdtempSync(join(tmpdir(), "rt-bench-headless-agent-"));
	const child = join(scripts, "child.ts");
	writeFileSync(child, CHILD);
	initOnAnyPort(project);
	const config = join(project, ".roundtable/config.yaml");
	const text = readFileSync(config, "utf8")
		.replace("  expose: []", `  expose: [${JSON.stringify(scripts)}]`)
		.replace(
			"adapters:\n",
			`adapters:\n  bench: { command: ${process.execPath} ${child}, headless: ${process.execPath} ${child} }\n`,
		);
	writeFileSync(config, text);
	const owner = await startOwner(project);
	/** One headless session, start to close: its figures in ms. */
	const once = async () => {
		const cpu0 = cpuMs(owner.pid);
		const t0 = Date.now();
		const reply = await callSocket(owner.socket, "session.start", {
			agent_id: "reviewer-1",
			adapter: "bench",
		});
		const answered = Date.now() - t0;
		const session = (reply.result as { session?: { id: string } } | undefined)?.session?.id;
		if (!session) throw new Error(`session.start failed: ${JSON.stringify(reply).slice(0, 300)}`);
		const transcript = join(project, ".roundtable/transcripts", `${session}.log`);
		const listedAt = () =>
			Number(/^(\d{13})$/m.exec(existsSync(transcript) ? readFileSync(transcript, "utf8") : "")?.[1]);
		await until(() => listedAt() > 0, 20_000, "the agent's first tools/list");
		await until(
			() => !existsSync(join(project, ".roundtable/sessions", session)),
			20_000,
			"the session's close",
		);
		await Bun.sleep(50); // its close is committed before its folder goes; let the owner settle
		return { answered, listed: listedAt() - t0, cpu: cpuMs(owner.pid) - cpu0 };
	};
	const series = async () => {
		await once(); // warm
		const runs = [];
		for (let i = 0; i < RUNS; i++) runs.push(await once());
		return {
			answered: median(runs.map((r) => r.answered)),
			listed: median(runs.map((r) => r.listed)),
			cpu: runs.reduce((a, r) => a + r.cpu, 0) / runs.length,
		};
	};
	try {
		const floors = Array.from({ length: RUNS }, () => {
			const t0 = Date.now();
			const r = Bun.spawnSync([process.execPath, child]);
			return Number(r.stdout.toString().trim()) - t0;
		});
		const floor = median(floors);
		const sandboxed = await series();
		writeFileSync(
			config,
			readFileSync(config, "utf8").replace(/(sessions:\n(?:.*\n)*? {2}sandbox: )auto/, "$1off"),
		);
		await Bun.sleep(1500); // the owner reloads the config
		const bare = await series();
		console.log(
			`session.start through the socket of a live owner (median of ${RUNS}; ms from sending the call):`,
		);
		console.log(
			`  floor: the same agent started directly, to its first line            ${fmt(floor, 0).padStart(5)} ms`,
		);
		for (const [name, s] of [
			["sessions.sandbox off", bare],
			["in bubblewrap       ", sandboxed],
		] as const)
			console.log(
				`  ${name}   answered ${fmt(s.answered, 0).padStart(4)} ms   first tools/list ${fmt(s.listed, 0).padStart(5)} ms   owner CPU per session ${fmt(s.cpu, 0).padStart(4)} ms`,
			);
	} finally {
		await owner.stop();
		rmSync(project, { recursive: true, force: true });
		rmSync(scripts, { recursive: true, force: true });
	}
}

if (import.meta.main) await run();
