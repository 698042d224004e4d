// One-shot `roundtable mcp call --tool task.list` as a script meets it: a whole process per call,
// with a live owner beside it (relayed through the owner's socket) and without one (in process),
// next to the floor: a bare bun script that opens the same database and reads the same rows.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fmt, freshProject, median } from "./lib.ts";

const MAIN = join(import.meta.dir, "..", "src", "main.ts");
const RUNS = Number(process.env.BENCH_CLI_RUNS ?? 15);
const TASKS = 200;

async function timeRuns(argv: string[]): Promise<number> {
	const times: number[] = [];
	for (let i = 0; i < RUNS + 2; i++) {
		const t = performance.now();
		const proc = Bun.spawn(argv, { stdout: "ignore", stderr: "pipe" });
		const [code, err] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
		if (code !== 0) throw new Error(`${argv.join(" ")} failed: ${err}`);
		if (i >= 2) times.push(performance.now() - t); // the first two warm the disk cache
	}
	return median(times);
}

export async function run() {
	console.log(`one-shot CLI: mcp call --tool task.list (${TASKS} tasks), median of ${RUNS} processes`);
	const project = await freshProject((dir) => {
		mkdirSync(join(dir, ".roundtable"), { recursive: true });
		writeFileSync(join(dir, ".roundtable", "config.yaml"), "mcp:\n  http_address: 127.0.0.1:0\n");
	});
	for (let i = 0; i < TASKS; i++) await project.call("task.create", { title: `task ${i}`, body_md: "x" });
	const { root } = project.rt;

	const floorScript = join(root, "floor.ts");
	writeFileSync(
		floorScript,
		`import { Database } from "bun:sqlite";
const db = new Database(${JSON.stringify(join(root, ".roundtable", "roundtable.db"))}, { readonly: true });
const rows = db.query("SELECT * FROM tasks ORDER BY priority, created_at, id LIMIT 200").all();
process.stdout.write(JSON.stringify({ tasks: rows }, null, 2));
`,
	);
	const cli = [process.execPath, MAIN, "mcp", "call", "--root", root, "--tool", "task.list"];
	const floor = await timeRuns([process.execPath, floorScript]);
	const alone = await timeRuns(cli);
	const owner = Bun.spawn([process.execPath, MAIN, "start", "--root", root], {
		stdout: "pipe",
		stderr: "ignore",
	});
	const reader = owner.stdout.getReader();
	await reader.read(); // the ready line
	const beside = await timeRuns(cli);
	const direct = await timeRuns([...cli, "--direct"]);
	owner.kill("SIGTERM");
	await owner.exited;
	project.done();
	const row = (label: string, ms: number) =>
		console.log(
			`  ${label.padEnd(44)} ${fmt(ms, 1).padStart(7)} ms   ${fmt(ms / floor, 1).padStart(5)}× floor`,
		);
	row("floor: bun script reading the rows", floor);
	row("mcp call beside a live owner (relayed)", beside);
	row("mcp call --direct beside a live owner", direct);
	row("mcp call with no owner (in process)", alone);
}

if (import.meta.main) await run();
