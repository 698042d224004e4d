// The "HTTP" figure of issue 37: `tools/call task.get` over Streamable HTTP through the owner (an
// implementer's capability, its task a real row) ÷ a minimal server on the same SDK answering the
// same row (./sdk-floor.ts on the 1.x line for 2025-11-25 sessions, ./sdk2-floor.ts on the 2.x
// line for 2026-07-28 requests), the same client, in alternating windows so that the machine's
// drift falls on both alike. One client calling back-to-back: the latency an agent meets.
import { rmSync } from "node:fs";
import { join } from "node:path";
import { capabilityHash, newCapability } from "../src/sessions/capability.ts";
import { callSocket } from "../src/transports/socket-client.ts";
import { type Figure, fmt, readLine, realProject, startOwner } from "./lib.ts";
import { mcpSession, modernCaller } from "./mcp-client.ts";

const WINDOWS = Number(process.env.BENCH_HTTP_WINDOWS ?? 10);
const PER_WINDOW = Number(process.env.BENCH_HTTP_CALLS ?? 300);

type Caller = (tool: string, args: object) => Promise<unknown>;

async function floor(script: string, rows: object) {
	const proc = Bun.spawn([process.execPath, join(import.meta.dir, script), JSON.stringify(rows)], {
		stdout: "pipe",
	});
	const url = /http=(\S+)/.exec(await readLine(proc.stdout))?.[1] as string;
	return {
		url,
		stop: async () => {
			proc.kill("SIGTERM");
			await proc.exited;
		},
	};
}

/** Calls per second of each caller, over alternating windows. */
async function alternate(callers: Caller[], args: object): Promise<number[]> {
	const spent = callers.map(() => 0);
	for (const call of callers) for (let i = 0; i < 100; i++) await call("task.get", args); // warm-up
	for (let w = 0; w < WINDOWS; w++)
		for (const [i, call] of callers.entries()) {
			const t0 = performance.now();
			for (let c = 0; c < PER_WINDOW; c++) await call("task.get", args);
			spent[i] = (spent[i] as number) + performance.now() - t0;
		}
	return spent.map((ms) => (WINDOWS * PER_WINDOW) / (ms / 1000));
}

export async function run(): Promise<Figure[]> {
	const project = realProject();
	const owner = await startOwner(project);
	const stops: (() => Promise<void>)[] = [owner.stop];
	try {
		const op = async (tool: string, args: object) => {
			const r = await callSocket(owner.socket, tool, args);
			if (!r.ok) throw new Error(`${tool}: ${r.error}`);
			return r.result as Record<string, unknown>;
		};
		const { task } = (await op("task.create", {
			title: "a task to read",
			body_md: "Read me, as an agent does on every resume.",
			assigned_agent_id: "implementer-1",
			readable_paths: ["src/**"],
		})) as { task: { id: string } };
		const bearer = newCapability();
		await op("session.mint", {
			agent_id: "implementer-1",
			capability_sha256: capabilityHash(bearer),
			task_id: task.id,
		});
		const args = { task_id: task.id };
		const session = await mcpSession(owner.url, bearer);
		const rows = { "task.get": await session.result("task.get", args) };
		const legacyFloor = await floor("sdk-floor.ts", rows);
		stops.push(legacyFloor.stop);
		const modernFloor = await floor("sdk2-floor.ts", rows);
		stops.push(modernFloor.stop);

		const ours2025 = session.call;
		const theirs2025 = (await mcpSession(legacyFloor.url)).call;
		const [a, b] = await alternate([ours2025, theirs2025], args);
		const [c, d] = await alternate([modernCaller(owner.url, bearer), modernCaller(modernFloor.url)], args);
		const legacy = (a as number) / (b as number);
		const modern = (c as number) / (d as number);
		console.log(
			`HTTP: tools/call task.get, one client back-to-back, ${WINDOWS} alternating windows of ${PER_WINDOW} calls:`,
		);
		console.log(
			`  2025-11-25  owner ${fmt(a as number)}/s   SDK 1.x floor ${fmt(b as number)}/s   ratio ${fmt(legacy, 2)}`,
		);
		console.log(
			`  2026-07-28  owner ${fmt(c as number)}/s   SDK 2.x floor ${fmt(d as number)}/s   ratio ${fmt(modern, 2)}`,
		);
		return [
			{ name: "HTTP 2025-11-25", ratio: legacy, goal: { op: "≥", value: 0.9 } },
			{ name: "HTTP 2026-07-28", ratio: modern, goal: { op: "≥", value: 0.9 } },
		];
	} finally {
		for (const stop of stops) await stop();
		rmSync(project, { recursive: true, force: true });
	}
}

if (import.meta.main) await run();
