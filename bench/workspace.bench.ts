// What a task-bound agent's workspace costs at launch, on a 20,000-file git repository: the copy of
// what the task may read and its private git repository (createWorkspace, the part the launch
// adds), and `sessions launch` from running the command to the agent's first tools/list, with a
// scope of 200 files and of all 20,000, beside a launch bound to no task (an empty workspace) and
// the floor, `cp -a` of the same files (on a slow disk, creating 20,000 files is most of the cost).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createWorkspace } from "../src/workspaces/create.ts";
import { bigRepository, fmt, initOnAnyPort, median, startOwner } from "./lib.ts";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const RUNS = Number(process.env.BENCH_RUNS ?? 5);

// The agent: initialize and tools/list on its socket, then print when the list came back.
const CHILD = `
const s = await Bun.connect({ unix: process.env.ROUNDTABLE_SESSION_SOCKET, socket: { data(_s, c) {
	if (new TextDecoder().decode(c).includes('"id":2')) { console.log(Date.now()); process.exit(0); }
} } });
s.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "b", version: "1" } } }) + "\\n");
s.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\\n");
s.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) + "\\n");
`;

export async function run(): Promise<void> {
	const root = bigRepository("rt-bench-ws-");
	const scripts = mkdtempSync(join(tmpdir(), "rt-bench-ws-agent-"));
	const child = join(scripts, "child.ts");
	writeFileSync(child, CHILD);
	const scopes: [string, string[]][] = [
		["200 files", ["src/p0", "src/p1"]],
		["all 20,000", ["src"]],
	];
	try {
		console.log(`a task's workspace, 20,000-file git repository (median of ${RUNS}):`);
		for (const [label, readable] of scopes) {
			const times: number[] = [];
			for (let i = 0; i < RUNS; i++) {
				const t = performance.now();
				const ws = await createWorkspace(root, `S-bench-${i}`, readable);
				times.push(performance.now() - t);
				ws.remove();
			}
			console.log(
				`  copy and private git repository, ${label.padEnd(11)} ${fmt(median(times), 0).padStart(6)} ms`,
			);
		}
		// The floor: the filesystem's own copy of the same files, no git at all.
		const floor: number[] = [];
		for (let i = 0; i < RUNS; i++) {
			const to = mkdtempSync(join(tmpdir(), "rt-bench-ws-cp-"));
			const t = performance.now();
			Bun.spawnSync(["cp", "-a", join(root, "src"), to]);
			floor.push(performance.now() - t);
			rmSync(to, { recursive: true, force: true });
		}
		console.log(`  floor: cp -a of the 20,000 files             ${fmt(median(floor), 0).padStart(6)} ms`);
		initOnAnyPort(root);
		const config = join(root, ".roundtable/config.yaml");
		writeFileSync(
			config,
			readFileSync(config, "utf8").replace("  expose: []", `  expose: [${JSON.stringify(scripts)}]`),
		);
		const owner = await startOwner(root);
		try {
			const cli = (args: string[]) => Bun.spawnSync([process.execPath, MAIN, ...args, "--root", root]);
			const launch = (binding: string[]) => {
				const t0 = Date.now();
				const r = Bun.spawnSync(
					[
						process.execPath,
						MAIN,
						"sessions",
						"launch",
						"--root",
						root,
						"--agent",
						"implementer-1",
						...binding,
					].concat(["--adapter", "generic", "--", process.execPath, child]),
					{ stderr: "pipe" },
				);
				const at = Number(new TextDecoder().decode(r.stdout).trim().split("\n").at(-1));
				if (!Number.isFinite(at)) throw new Error(`launch: ${r.stderr.toString()}`);
				return at - t0;
			};
			const series = (binding: string[]) => median(Array.from({ length: RUNS }, () => launch(binding)));
			console.log(`sessions launch to the agent's first tools/list (median of ${RUNS}):`);
			console.log(`  bound to no task (an empty workspace)        ${fmt(series([]), 0).padStart(6)} ms`);
			for (const [label, readable] of scopes) {
				const id = `T-${label.replace(/\W/g, "")}`;
				cli([
					"mcp",
					"call",
					"--tool",
					"task.create",
					"--args",
					JSON.stringify({
						task_id: id,
						title: "t",
						body_md: "b",
						assigned_agent_id: "implementer-1",
						readable_paths: readable,
					}),
				]);
				console.log(
					`  bound to a task whose scope is ${label.padEnd(11)}  ${fmt(series(["--task", id]), 0).padStart(6)} ms`,
				);
			}
		} finally {
			await owner.stop();
		}
	} finally {
		rmSync(root, { recursive: true, force: true });
		rmSync(scripts, { recursive: true, force: true });
	}
}

if (import.meta.main) await run();
