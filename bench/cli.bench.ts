// The "one-shot CLI" figure of issue 22: `roundtable mcp call --tool task.list` as a script runs it,
// a whole process per call, beside a live owner (so it relays through the owner's socket), over the
// floor: a bare `bun -e` script that opens the same database and prints the same rows. The project
// is a real one (`roundtable init`, 200 tasks). Within a window the floor, the source and the
// compiled binary take turns process by process, so a burst of load on this shared machine hits
// them alike; each window gives medians, and the figure is the median window's ratio.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callSocket } from "../src/transports/socket-client.ts";
import { type Figure, fmt, initOnAnyPort, median, startOwner } from "./lib.ts";

const ROOT = join(import.meta.dir, "..");
const MAIN = join(ROOT, "src", "main.ts");
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 10);
const WINDOWS = Number(process.env.BENCH_CLI_WINDOWS ?? 5);
const TASKS = 200;

/** What task.list reads and prints: the same columns, order and page, readable_paths parsed. */
const floorScript = (db: string) => `import { Database } from "bun:sqlite";
const db = new Database(${JSON.stringify(db)}, { readonly: true });
const rows = db.query("SELECT id, run_id, title, body_md, status, priority, risk, assigned_agent_id, readable_paths, revision, created_at, updated_at FROM tasks ORDER BY priority, created_at, id LIMIT 201").all();
const tasks = rows.slice(0, 200).map((r) => ({ ...r, readable_paths: JSON.parse(r.readable_paths) }));
process.stdout.write(JSON.stringify({ tasks, next_cursor: null }, null, 2) + "\\n");`;

/** One process to its exit, in ms; a failure stops the bench (a fast error is no figure). */
async function once(argv: string[]): Promise<number> {
	const start = performance.now();
	const proc = Bun.spawn(argv, { stdout: "ignore", stderr: "pipe" });
	const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
	const ms = performance.now() - start;
	if (code !== 0) throw new Error(`${argv.join(" ")} exited ${code}: ${err}`);
	return ms;
}

/** `runs` rounds of each command in turn; the median time of each. */
async function window(argvs: string[][], runs: number): Promise<number[]> {
	const times = argvs.map((): number[] => []);
	for (let i = 0; i < runs; i++) for (const [k, argv] of argvs.entries()) times[k]?.push(await once(argv));
	return times.map(median);
}

/** The floor and the CLI print the same rows, or the figure compares unlike work. */
function sameOutput(floor: string[], cli: string[]): void {
	const out = (argv: string[]) => JSON.parse(Bun.spawnSync(argv).stdout.toString());
	if (!Bun.deepEquals(out(floor), out(cli))) throw new Error(`${cli[0]} prints other rows than the floor`);
}

/** The compiled binary, built by `npm run build`'s own script. */
function buildBinary(dir: string): string {
	const binary = join(dir, "roundtable");
	const build = Bun.spawnSync([process.execPath, join(ROOT, "scripts", "build.ts"), binary], { cwd: ROOT });
	if (build.exitCode !== 0) throw new Error(`the build failed: ${build.stderr.toString()}`);
	return binary;
}

export async function run(): Promise<Figure> {
	const project = mkdtempSync(join(tmpdir(), "rt-bench-cli-"));
	const scratch = mkdtempSync(join(tmpdir(), "rt-bench-cli-bin-"));
	initOnAnyPort(project);
	const owner = await startOwner(project);
	try {
		const { socket } = owner;
		for (let i = 0; i < TASKS; i++) {
			const reply = await callSocket(socket, "task.create", { title: `task ${i}`, body_md: "x" });
			if (!reply.ok) throw new Error(`task.create failed: ${reply.error}`);
		}
		const floor = [process.execPath, "-e", floorScript(join(project, ".roundtable", "roundtable.db"))];
		const call = ["mcp", "call", "--tool", "task.list", "--root", project];
		const source = [process.execPath, MAIN, ...call];
		const binary = [buildBinary(scratch), ...call];
		sameOutput(floor, source);
		sameOutput(floor, binary);
		await window([floor, source, binary], 2); // the disk cache

		const floors: number[] = [];
		const sources: number[] = [];
		const binaries: number[] = [];
		for (let w = 0; w < WINDOWS; w++) {
			const [f, s, b] = await window([floor, source, binary], RUNS);
			floors.push(f as number);
			sources.push(s as number);
			binaries.push(b as number);
		}
		// The in-process path (no owner to relay to): not the figure, but what a call costs without one.
		const [direct] = await window([[...source, "--direct"]], Math.ceil(RUNS / 2));

		const ratios = (xs: number[]) => xs.map((x, w) => x / (floors[w] as number));
		const ratio = median(ratios(sources));
		const ms = (xs: number[]) => `${xs.map((x) => fmt(x, 1)).join(" ")}  median ${fmt(median(xs), 1)} ms`;
		const per = (xs: number[]) => `${xs.map((x) => fmt(x, 2)).join(" ")}  median ${fmt(median(xs), 2)}`;
		console.log(
			`one-shot CLI: mcp call --tool task.list (${TASKS} tasks) beside a live owner, ${WINDOWS} windows of ${RUNS} processes:`,
		);
		console.log(`  floor: bun -e reading the rows     ${ms(floors)}`);
		console.log(`  bun src/main.ts mcp call (relay)   ${ms(sources)}`);
		console.log(`  compiled binary mcp call (relay)   ${ms(binaries)}`);
		console.log(`  mcp call --direct (in process)     ${fmt(direct as number, 1)} ms`);
		console.log(`  ratio per window, source           ${per(ratios(sources))}`);
		console.log(`  ratio per window, binary           ${per(ratios(binaries))}`);
		return { name: "one-shot CLI", ratio, goal: { op: "≤", value: 2.5 } };
	} finally {
		await owner.stop();
		rmSync(project, { recursive: true, force: true });
		rmSync(scratch, { recursive: true, force: true });
	}
}

if (import.meta.main) await run();
