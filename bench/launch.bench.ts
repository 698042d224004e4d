// `roundtable sessions launch` beside a live owner: from running the command to the agent's first
// tools/list answered through its session's socket, and to the command's exit (the session closed),
// in bubblewrap and with sessions.sandbox off; beside the floor of starting the same child directly.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fmt, median, readLine } from "./lib.ts";

const ROOT = join(import.meta.dir, "..");
const MAIN = join(ROOT, "src/main.ts");
const RUNS = Number(process.env.BENCH_RUNS ?? 10);

// The agent: initialize and tools/list on its socket, then print when the list came back.
const CHILD = `
const socket = process.env.ROUNDTABLE_SESSION_SOCKET;
if (!socket) { console.log(Date.now()); process.exit(0); }
let buffer = "";
let done;
const listed = new Promise((r) => (done = r));
const s = await Bun.connect({ unix: socket, socket: { data(_s, c) {
	buffer += new TextDecoder().decode(c);
	if (buffer.includes('"id":2')) done();
} } });
s.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "b", version: "1" } } }) + "\\n");
s.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\\n");
s.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) + "\\n");
await listed;
console.log(Date.now());
s.end();
`;

export async function run(): Promise<void> {
	const project = mkdtempSync(join(tmpdir(), "rt-bench-launch-"));
	const child = join(project, "child.ts");
	const cli = (args: string[]) => Bun.spawnSync([process.execPath, MAIN, ...args, "--root", project]);
	cli(["init"]);
	const config = join(project, ".roundtable/config.yaml");
	const text = readFileSync(config, "utf8").replace("127.0.0.1:7117", "127.0.0.1:0");
	writeFileSync(config, text);
	writeFileSync(child, CHILD);
	const owner = Bun.spawn([process.execPath, MAIN, "start", "--root", project], {
		stdout: "pipe",
		stderr: "ignore",
	});
	await readLine(owner.stdout);
	const once = (argv: string[]) => {
		const t0 = Date.now();
		const r = Bun.spawnSync(argv, { stderr: "pipe" });
		const listedAt = Number(new TextDecoder().decode(r.stdout).trim().split("\n").at(-1));
		return { listed: listedAt - t0, exited: Date.now() - t0 };
	};
	const series = (argv: string[]) => {
		const runs = Array.from({ length: RUNS }, () => once(argv));
		return { listed: median(runs.map((r) => r.listed)), exited: median(runs.map((r) => r.exited)) };
	};
	try {
		const launch = [
			process.execPath,
			MAIN,
			"sessions",
			"launch",
			"--root",
			project,
			"--agent",
			"reviewer-1",
			"--",
			process.execPath,
			child,
		];
		const floor = series([process.execPath, child]);
		const sandboxed = series(launch);
		writeFileSync(config, text.replace(/(sessions:\n(?:.*\n)*? {2}sandbox: )auto/, "$1off"));
		await Bun.sleep(1200); // the owner reloads the config; the launcher reads it itself
		const bare = series(launch);
		console.log(`sessions launch beside a live owner (median of ${RUNS}; ms from running the command):`);
		console.log(
			`  floor: the same child, started directly          exits ${fmt(floor.exited, 0).padStart(5)} ms`,
		);
		console.log(
			`  launch, sessions.sandbox off   first tools/list ${fmt(bare.listed, 0).padStart(5)} ms   exits ${fmt(bare.exited, 0).padStart(5)} ms`,
		);
		console.log(
			`  launch, in bubblewrap          first tools/list ${fmt(sandboxed.listed, 0).padStart(5)} ms   exits ${fmt(sandboxed.exited, 0).padStart(5)} ms   (sandbox +${fmt(sandboxed.listed - bare.listed, 0)} ms)`,
		);
	} finally {
		owner.kill("SIGTERM");
		await owner.exited;
		rmSync(project, { recursive: true, force: true });
	}
}

if (import.meta.main) await run();
