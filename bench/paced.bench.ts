// Speed at an agent's pace (issue 37): agents think for seconds between tool calls, so an owner is
// met mostly after a pause. Each agent is an implementer with its own capability, bound to its own
// task, calling a realistic mix over Streamable HTTP (2025-11-25 sessions, as Codex speaks):
// agent.brief, task.get, repo.read_file, resource.claim, message.inbox, table.watch, with pauses
// drawn from 0.5–4 s (the same seeded draws for every server). The floor is the minimal SDK server
// (./sdk-floor.ts) answering the same tools with the owner's own rows, paced the same way.
//
// Figures: "paced latency" (the owner's pause penalty, paced ÷ the same mix back-to-back, over the
// floor's, at p50 and p99, 5 agents), "many agents" (the owner's paced p99 with 100 agents ÷ with
// 10) and "memory" (owner RSS after the paced run ÷ the floor's after the same).
import { rmSync } from "node:fs";
import { join } from "node:path";
import { capabilityHash, newCapability } from "../src/sessions/capability.ts";
import { callSocket } from "../src/transports/socket-client.ts";
import { type Figure, fmt, percentile, readLine, realProject, rssMb, startOwner } from "./lib.ts";
import { mcpSession } from "./mcp-client.ts";

const TEAM = 5;
const FEW = 10;
const MANY = 100;
/** Calls per agent: in the team's runs, and in the 10- and 100-agent runs. */
const TEAM_CALLS = Number(process.env.BENCH_PACED_CALLS ?? 60);
const CROWD_CALLS = Number(process.env.BENCH_PACED_CROWD_CALLS ?? 16);
const PAUSE_MS: [number, number] = [500, 4000];
const SETTLE_MS = 1000;

type Call = [tool: string, args: Record<string, unknown>];

interface Agent {
	bearer: string;
	mix: Call[];
}

/** A seeded draw in [0, 1) (mulberry32): agent i pauses alike against every server. */
function draws(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = Math.imul(a ^ (a >>> 15), 1 | a);
		t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** `n` implementers of the owner, each with a task of its own, a claim to read and a capability. */
async function team(socket: string, n: number, files: string[]): Promise<Agent[]> {
	const op = async (tool: string, args: object) => {
		const r = await callSocket(socket, tool, args);
		if (!r.ok) throw new Error(`${tool}: ${r.error}`);
		return r.result as Record<string, unknown>;
	};
	const agents: Agent[] = [];
	for (let i = 1; i <= n; i++) {
		const agent = `implementer-${i}`;
		const file = files[(i - 1) % files.length] as string;
		const { task } = (await op("task.create", {
			title: `work ${i}`,
			body_md: `Change ${file}.`,
			assigned_agent_id: agent,
			readable_paths: ["src/**"],
		})) as { task: { id: string } };
		const bearer = newCapability();
		await op("session.mint", {
			agent_id: agent,
			capability_sha256: capabilityHash(bearer),
			task_id: task.id,
		});
		const claim = {
			resource_type: "file",
			resource_id: `file:${file}`,
			claim_type: "write",
			task_id: task.id,
		};
		agents.push({
			bearer,
			mix: [
				["agent.brief", {}],
				["resource.claim", claim],
				["task.get", { task_id: task.id }],
				["repo.read_file", { path: file }],
				["message.inbox", {}],
				["table.watch", { limit: 20 }],
			],
		});
	}
	return agents;
}

/**
 * Each agent calls its mix `calls` times; every call's ms. Paced: all agents at once, each pausing
 * before every call. Back-to-back: one agent after another, no pauses, so nothing queues and each
 * call meets a warm server: the service time that pauses are compared with.
 */
async function drive(url: string, agents: Agent[], calls: number, paced: boolean): Promise<number[]> {
	const times: number[] = [];
	const one = async (a: Agent, i: number) => {
		const session = await mcpSession(url, a.bearer);
		const next = draws(i + 1);
		for (let c = 0; c < calls; c++) {
			if (paced) await Bun.sleep(PAUSE_MS[0] + next() * (PAUSE_MS[1] - PAUSE_MS[0]));
			const [tool, args] = a.mix[c % a.mix.length] as Call;
			const t0 = performance.now();
			await session.call(tool, args);
			times.push(performance.now() - t0);
		}
	};
	if (paced) await Promise.all(agents.map(one));
	else for (const [i, a] of agents.entries()) await one(a, i);
	return times.sort((x, y) => x - y);
}

/** What a server is to this bench: where its MCP endpoint is, its process, and how it ends. */
interface Served {
	url: string;
	pid: number;
	stop(): Promise<void>;
}

async function floorServer(rows: Record<string, unknown>): Promise<Served> {
	const proc = Bun.spawn([process.execPath, join(import.meta.dir, "sdk-floor.ts"), JSON.stringify(rows)], {
		stdout: "pipe",
	});
	const url = /http=(\S+)/.exec(await readLine(proc.stdout))?.[1] as string;
	return {
		url,
		pid: proc.pid,
		stop: async () => {
			proc.kill("SIGTERM");
			await proc.exited;
		},
	};
}

interface Run {
	b2b: number[];
	paced: number[];
	rss: number;
}

/** Back-to-back (three times as many calls: they are quick, and steady the tail), then paced, then RSS once settled. */
async function measure(server: Served, agents: Agent[], calls: number): Promise<Run> {
	const b2b = await drive(server.url, agents, 3 * calls, false);
	const paced = await drive(server.url, agents, calls, true);
	await Bun.sleep(SETTLE_MS);
	return { b2b, paced, rss: rssMb(server.pid) };
}

const p = (xs: number[], q: number) => percentile(xs, q);
const row = (label: string, xs: number[]) =>
	`  ${label.padEnd(34)} p50 ${fmt(p(xs, 50), 2).padStart(6)} ms  p99 ${fmt(p(xs, 99), 2).padStart(6)} ms  (${xs.length} calls)`;

export async function run(): Promise<Figure[]> {
	const project = realProject((config) =>
		config.replace(/implementers: \{ count: \d+/, `implementers: { count: ${MANY}`),
	);
	// A file of its own for each agent to claim and read: no claim waits on another's.
	const files = Bun.spawnSync(["git", "ls-files", "src"], { cwd: project })
		.stdout.toString()
		.split("\n")
		.filter((f) => f.endsWith(".ts"))
		.slice(0, MANY);
	try {
		const owner = await startOwner(project);
		let agents: Agent[];
		let ours: Run;
		let few: number[];
		let many: number[];
		const rows: Record<string, unknown> = {};
		try {
			agents = await team(owner.socket, MANY, files);
			// The floor answers each tool with the owner's own answer to the first agent.
			const first = agents[0] as Agent;
			const session = await mcpSession(owner.url, first.bearer);
			for (const [tool, args] of first.mix) rows[tool] = await session.result(tool, args);
			ours = await measure(owner, agents.slice(0, TEAM), TEAM_CALLS);
			few = await drive(owner.url, agents.slice(0, FEW), CROWD_CALLS, true);
			many = await drive(owner.url, agents, CROWD_CALLS, true);
		} finally {
			await owner.stop();
		}
		const floor = await floorServer(rows);
		let theirs: Run;
		try {
			const unauthenticated = agents.slice(0, TEAM).map((a) => ({ bearer: "", mix: a.mix }));
			theirs = await measure(floor, unauthenticated, TEAM_CALLS);
		} finally {
			await floor.stop();
		}
		const penalty = (r: Run, q: number) => p(r.paced, q) / p(r.b2b, q);
		console.log(
			`paced: ${TEAM} implementers over Streamable HTTP, each ${TEAM_CALLS} calls of its mix, pauses ${PAUSE_MS[0] / 1000}–${PAUSE_MS[1] / 1000} s:`,
		);
		console.log(row("floor: minimal SDK server, back-to-back", theirs.b2b));
		console.log(row("floor: minimal SDK server, paced", theirs.paced));
		console.log(row("owner, back-to-back", ours.b2b));
		console.log(row("owner, paced", ours.paced));
		const p50 = penalty(ours, 50) / penalty(theirs, 50);
		const p99 = penalty(ours, 99) / penalty(theirs, 99);
		console.log(
			`  pause penalty (paced ÷ back-to-back)  floor p50 ${fmt(penalty(theirs, 50), 2)} p99 ${fmt(penalty(theirs, 99), 2)}; owner p50 ${fmt(penalty(ours, 50), 2)} p99 ${fmt(penalty(ours, 99), 2)}`,
		);
		console.log(`  owner ÷ floor                         p50 ${fmt(p50, 2)}  p99 ${fmt(p99, 2)}`);
		console.log(`many agents: the same paced mix, ${CROWD_CALLS} calls each:`);
		console.log(row(`owner, ${FEW} agents`, few));
		console.log(row(`owner, ${MANY} agents`, many));
		const crowd = p(many, 99) / p(few, 99);
		console.log(`  p99 ${MANY} ÷ ${FEW}                        ${fmt(crowd, 2)}`);
		const memory = ours.rss / theirs.rss;
		console.log(
			`memory after the paced run: owner ${fmt(ours.rss, 1)} MB, floor ${fmt(theirs.rss, 1)} MB, ratio ${fmt(memory, 2)}`,
		);
		return [
			{ name: "paced p50", ratio: p50, goal: { op: "≤", value: 1.3 } },
			{ name: "paced p99", ratio: p99, goal: { op: "≤", value: 1.5 } },
			{ name: "many agents", ratio: crowd, goal: { op: "≤", value: 1.5 } },
			{ name: "memory", ratio: memory, goal: { op: "≤", value: 2.0 } },
		];
	} finally {
		rmSync(project, { recursive: true, force: true });
	}
}

if (import.meta.main) await run();
