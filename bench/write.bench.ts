// The "write" figure of issue 22: task.create calls/s through a live owner's socket (one call per
// connection, as the protocol does), over the floor: bare bun:sqlite inserting one task-shaped row
// (10 columns, one primary key) per transaction, WAL with synchronous=FULL, in a directory next to
// the project's (same file system). Windows alternate floor, ceiling and owner; the figure is the
// median. The ceiling (./write-ceiling.ts) is the floor's work behind a bare socket server, called
// by the same client: the most any server of this protocol reaches here, printed so the figure can
// be read against what the round trip alone costs. The schema ceiling (./write-schema-ceiling.ts) is
// the product's own database work for a task.create behind the same server: what is left of the
// figure for a server with the product's schema whose code cost nothing.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { callSocket } from "../src/transports/socket-client.ts";
import { type Figure, fmt, initOnAnyPort, median, startBareServer, startOwner } from "./lib.ts";
import { walPagesPerCreate } from "./wal-pages.ts";
import { openFloor } from "./write-floor.ts";

const CALLS = Number(process.env.BENCH_WRITE_CALLS ?? 400);
const WINDOWS = Number(process.env.BENCH_WRITE_WINDOWS ?? 5);
/** Where both databases go; BENCH_DIR overrides (it must not be a tmpfs). */
const BASE = process.env.BENCH_DIR ?? tmpdir();

async function socketWindow(socket: string, calls: number, offset: number): Promise<number> {
	const start = performance.now();
	for (let i = 0; i < calls; i++) {
		const reply = await callSocket(socket, "task.create", {
			title: `task ${offset + i}`,
			body_md: "a body of ordinary length for a task",
		});
		if (!reply.ok) throw new Error(`task.create failed: ${reply.error}`);
	}
	return calls / ((performance.now() - start) / 1000);
}

/** CPU time (user + system) the process has used, in ms, from /proc (Linux). */
function cpuMs(pid: number): number {
	const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
	const ticks = Number(fields[11]) + Number(fields[12]);
	return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** `clients` connections at once, each making `calls / clients` calls one after another. */
async function concurrentWindow(
	socket: string,
	calls: number,
	clients: number,
	offset: number,
): Promise<number> {
	const start = performance.now();
	const each = Math.ceil(calls / clients);
	await Promise.all(Array.from({ length: clients }, (_, c) => socketWindow(socket, each, offset + c * each)));
	return (each * clients) / ((performance.now() - start) / 1000);
}

const CLIENTS = 8;

/** Runs one window of `CALLS` calls; pushes the CPU `pid` spent per call (µs) to `perCall`. */
async function withCpu(pid: number, perCall: number[], window: () => Promise<number>): Promise<number> {
	const before = cpuMs(pid);
	const rate = await window();
	perCall.push(((cpuMs(pid) - before) * 1000) / CALLS);
	return rate;
}

export async function run(): Promise<Figure[]> {
	const project = mkdtempSync(join(BASE, "rt-bench-write-"));
	const floorDir = mkdtempSync(join(BASE, "rt-bench-write-floor-"));
	initOnAnyPort(project);
	const owner = await startOwner(project);
	const floor = openFloor(floorDir);
	const ceilingDir = mkdtempSync(join(BASE, "rt-bench-write-ceiling-"));
	const ceilingSocket = join(ceilingDir, "ceiling.sock");
	const schemaSocket = join(ceilingDir, "schema.sock");
	const servers: Awaited<ReturnType<typeof startBareServer>>[] = [];
	try {
		const ceilingServer = await startBareServer("write-ceiling.ts", ceilingSocket, ceilingDir);
		servers.push(ceilingServer);
		const schemaServer = await startBareServer("write-schema-ceiling.ts", schemaSocket, ceilingDir);
		servers.push(schemaServer);
		const { socket } = owner;
		for (const s of [socket, ceilingSocket, schemaSocket]) await socketWindow(s, 50, -50); // warm-up
		floor.window(50);
		const floors: number[] = [];
		const ceiling: number[] = [];
		const schema: number[] = [];
		const single: number[] = [];
		const many: number[] = [];
		const cpu = {
			single: [] as number[],
			many: [] as number[],
			ceiling: [] as number[],
			schema: [] as number[],
		};
		for (let w = 0; w < WINDOWS; w++) {
			floors.push(floor.window(CALLS));
			ceiling.push(
				await withCpu(ceilingServer.pid, cpu.ceiling, () => socketWindow(ceilingSocket, CALLS, 0)),
			);
			schema.push(await withCpu(schemaServer.pid, cpu.schema, () => socketWindow(schemaSocket, CALLS, 0)));
			single.push(await withCpu(owner.pid, cpu.single, () => socketWindow(socket, CALLS, 2 * w * CALLS)));
			many.push(
				await withCpu(owner.pid, cpu.many, () =>
					concurrentWindow(socket, CALLS, CLIENTS, (2 * w + 1) * CALLS),
				),
			);
		}
		/** Each window's rate over the same window's `base` (the floor's, unless said). */
		const ratio = (xs: number[], base = floors) => xs.map((x, i) => x / (base[i] as number));
		const line = (label: string, xs: number[]) =>
			console.log(`  ${label.padEnd(30)}${xs.map((x) => fmt(x)).join(" ")}  median ${fmt(median(xs))} /s`);
		const ratioLine = (label: string, xs: number[]) =>
			console.log(`  ${label.padEnd(30)}${xs.map((x) => fmt(x, 2)).join(" ")}  median ${fmt(median(xs), 2)}`);
		console.log(
			`write: task.create over the owner's socket, one call per connection, ${WINDOWS} windows of ${fmt(CALLS)} calls (WAL, synchronous=FULL):`,
		);
		line("floor: bun:sqlite row+commit", floors);
		line("ceiling: bare socket + floor", ceiling);
		line("schema ceiling: + our SQL", schema);
		line("1 client", single);
		line(`${CLIENTS} clients at once`, many);
		ratioLine("ceiling's ratio", ratio(ceiling));
		ratioLine("schema ceiling's ratio", ratio(schema));
		ratioLine("ratio, 1 client", ratio(single));
		ratioLine(`ratio, ${CLIENTS} clients`, ratio(many));
		ratioLine("1 client ÷ schema ceiling", ratio(single, schema));
		console.log(
			`  owner CPU per call            1 client ${fmt(median(cpu.single))} µs, ${CLIENTS} clients ${fmt(median(cpu.many))} µs (the ceilings' servers: ${fmt(median(cpu.ceiling))} µs, ${fmt(median(cpu.schema))} µs)`,
		);
		console.log(`  WAL pages per task.create      ${fmt(await walPagesPerCreate(), 1)} (the floor's row: 2)`);
		return [
			{ name: "write", ratio: median(ratio(single)), goal: { op: "≥", value: 0.5 } },
			{ name: "concurrent write", ratio: median(ratio(many)), goal: { op: "≥", value: 1.5 } },
		];
	} finally {
		floor.close();
		await Promise.all([owner.stop(), ...servers.map((s) => s.stop())]);
		for (const dir of [project, floorDir, ceilingDir]) rmSync(dir, { recursive: true, force: true });
	}
}

if (import.meta.main) await run();
