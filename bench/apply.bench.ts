// patch.validate and patch.apply for a 50-file patch in a 20,000-file git repository, and the
// rollback of that apply. Each run edits 50 other files, so no run sees the previous one's work.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fmt, freshProject, median } from "./lib.ts";

const FILES = Number(process.env.BENCH_APPLY_FILES ?? 20_000);
const TOUCHED = 50;
const RUNS = 5;

function git(cwd: string, ...args: string[]): string {
	const r = Bun.spawnSync(["git", "-c", "user.email=b@b", "-c", "user.name=b", ...args], { cwd });
	if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
	return r.stdout.toString();
}

const fileOf = (i: number) => `src/pkg${Math.floor(i / 100)}/file${i % 100}.ts`;

function generate(root: string): void {
	for (let d = 0; d < FILES / 100; d++) {
		mkdirSync(join(root, "src", `pkg${d}`), { recursive: true });
		for (let f = 0; f < 100; f++) {
			const i = d * 100 + f;
			const lines = Array.from({ length: 40 }, (_, l) => `export const v${l} = ${i * 40 + l};`);
			writeFileSync(join(root, fileOf(i)), `${lines.join("\n")}\n`);
		}
	}
	git(root, "init", "-q");
	git(root, "add", ".");
	git(root, "commit", "-qm", "start");
}

export async function run(): Promise<void> {
	const t0 = performance.now();
	const p = await freshProject(generate);
	const root = p.rt.root;
	const tool = <T = unknown>(name: string, args: object) => p.call(name, args) as Promise<T>;
	console.log(
		`patch.validate / patch.apply / patch.rollback, ${TOUCHED}-file patch, ${fmt(FILES)}-file git repository`,
	);
	console.log(`  (setup ${fmt((performance.now() - t0) / 1000, 1)} s; median of ${RUNS} runs)`);

	const times = { validate: [] as number[], apply: [] as number[], rollback: [] as number[] };
	for (let r = 0; r < RUNS; r++) {
		const { task } = await tool<{ task: { id: string } }>("task.create", {
			title: `bench ${r}`,
			body_md: "apply",
		});
		const paths = Array.from({ length: TOUCHED }, (_, k) => fileOf((r * TOUCHED + k) * 7 + 13));
		for (const path of paths) {
			await tool("resource.claim", {
				resource_type: "file",
				resource_id: `file:${path}`,
				claim_type: "write",
				task_id: task.id,
				agent_id: "implementer-1",
			});
			const text = readFileSync(join(root, path), "utf8");
			writeFileSync(join(root, path), text.replace("export const v7 =", "export const seven ="));
		}
		const patch = git(root, "diff");
		git(root, "checkout", "--", ".");
		const { proposal } = await tool<{ proposal: { id: string } }>("proposal.create", {
			task_id: task.id,
			agent_id: "implementer-1",
			title: "Rename v7",
			summary_md: "bench",
			affected_resources: [],
			risk: "normal",
			patch,
		});
		await tool("proposal.request_review", { proposal_id: proposal.id });
		for (const agent of ["architect-1", "reviewer-1"]) {
			await tool("vote.cast", {
				proposal_id: proposal.id,
				agent_id: agent,
				vote: "approve",
				reason_md: "ok",
			});
		}

		let t = performance.now();
		const v = await tool<{ approvable: boolean }>("patch.validate", { proposal_id: proposal.id });
		times.validate.push(performance.now() - t);
		if (!v.approvable) throw new Error("bench proposal is not approvable");
		t = performance.now();
		const { transaction } = await tool<{ transaction: { id: string } }>("patch.apply", {
			proposal_id: proposal.id,
		});
		times.apply.push(performance.now() - t);
		t = performance.now();
		await tool("patch.rollback", { transaction_id: transaction.id });
		times.rollback.push(performance.now() - t);
	}
	for (const [name, xs] of Object.entries(times)) {
		console.log(
			`  ${`patch.${name}`.padEnd(15)} ${fmt(median(xs), 1).padStart(7)} ms   (min ${fmt(Math.min(...xs), 1)}, max ${fmt(Math.max(...xs), 1)})`,
		);
	}
	p.done();
}

if (import.meta.main) await run();
