// resource.claim + resource.release pairs per second through the dispatcher, with no other claims
// and with 10,000 live claims held by another agent: the conflict check must not slow down with the
// number of claims (it uses indexes, not a scan).
import { fmt, freshProject } from "./lib.ts";

const PAIRS = Number(process.env.BENCH_PAIRS ?? 2000);
const HELD = 10_000;

async function pairsPerSecond(held: number): Promise<number> {
	const p = await freshProject();
	const { task } = (await p.call("task.create", { title: "bench", body_md: "claims" })) as {
		task: { id: string };
	};
	const claim = (agent: string, path: string) =>
		p.call("resource.claim", {
			resource_type: "file",
			resource_id: `file:${path}`,
			claim_type: "write",
			task_id: task.id,
			agent_id: agent,
			base_hash: "seed", // skip hashing: the figure is about the claim bookkeeping
			ttl_seconds: 3600,
		}) as Promise<{ claim: { id: string } }>;
	for (let i = 0; i < held; i++) await claim("implementer-2", `held/dir${i % 100}/file${i}.ts`);
	for (let i = 0; i < 50; i++) {
		const { claim: c } = await claim("implementer-1", `warm/${i}.ts`);
		await p.call("resource.release", { claim_id: c.id, agent_id: "implementer-1" });
	}
	const start = performance.now();
	for (let i = 0; i < PAIRS; i++) {
		// Files next to the held ones, so the candidate query really has neighbours to consider.
		const { claim: c } = await claim("implementer-1", `held/dir${i % 100}/mine${i}.ts`);
		await p.call("resource.release", { claim_id: c.id, agent_id: "implementer-1" });
	}
	const seconds = (performance.now() - start) / 1000;
	p.done();
	return PAIRS / seconds;
}

export async function run(): Promise<void> {
	console.log(`resource.claim + resource.release, ${fmt(PAIRS)} pairs (each call its own transaction):`);
	const none = await pairsPerSecond(0);
	console.log(`  no other claims                   ${fmt(none).padStart(6)} pairs/s`);
	const many = await pairsPerSecond(HELD);
	console.log(
		`  ${fmt(HELD)} live claims by another agent  ${fmt(many).padStart(6)} pairs/s   (${fmt(many / none, 2)} of the empty case)`,
	);
}

if (import.meta.main) await run();
