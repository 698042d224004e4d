// Hot reload of .roundtable/config.yaml and POLICIES.ROUNDTABLE.md: the reload module driven
// directly on a real runtime (each change needs two polls: one sees it, the next sees it settled),
// and a real `mcp serve` owner in a subprocess whose calls see the new values.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { policyOf } from "../../src/gates/check.ts";
import { type Reloader, startReloader } from "../../src/owner/reload.ts";
import { PolicyError } from "../../src/policy/index.ts";
import type { Policy } from "../../src/policy/types.ts";
import { callSocket } from "../../src/transports/socket-client.ts";
import { allEvents, MAIN, makeProject, type Project, readyLine, until } from "../_helpers/helpers.ts";

// Each test runs several CLI subprocesses; under a full parallel run they need room.
setDefaultTimeout(30_000);

const CONFIG = join(".roundtable", "config.yaml");
const POLICY = "POLICIES.ROUNDTABLE.md";
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const policyDoc = (yaml: string) => `# Policies\n\n\`\`\`yaml\n${yaml.trim()}\n\`\`\`\n`;
const FROBNICATE = policyDoc("commands:\n  dangerous: [frobnicate]");
const BROKEN_POLICY = policyDoc("consensus:\n  default:\n    approvals_required: lots");

interface Watching {
	p: Project;
	reloader: Reloader;
	logs: string[];
	/** Two polls: the change is seen, then seen settled and applied. */
	settle(): Promise<void>;
	read(file: string): string;
	/** Writes `text` to a temp file and renames it over `file`, as editors save. */
	save(file: string, text: string): void;
	reloads(): Promise<{ type: string; payload: Record<string, unknown> }[]>;
}

const stops: Reloader[] = [];
afterAll(async () => {
	for (const r of stops) await r.stop();
});

async function watching(before?: (root: string) => void, intervalMs = 60_000): Promise<Watching> {
	const p = await makeProject();
	before?.(p.root);
	const logs: string[] = [];
	// By default a long interval: the test polls by hand.
	const reloader = startReloader(p.rt, { log: (line) => logs.push(line), intervalMs });
	stops.push(reloader);
	await reloader.ready;
	return {
		p,
		reloader,
		logs,
		async settle() {
			await reloader.poll();
			await reloader.poll();
		},
		read: (file) => readFileSync(join(p.root, file), "utf8"),
		save(file, text) {
			const tmp = join(p.root, `${file}.tmp`);
			writeFileSync(tmp, text);
			renameSync(tmp, join(p.root, file));
		},
		reloads: async () => (await allEvents(p)).filter((e) => e.type === "config.reloaded"),
	};
}

async function reviewFindings(p: Project): Promise<string[]> {
	const out = (await p.call("security.review", { resource_id: "file:deploy.sh" })) as {
		findings: { code: string; message: string }[];
	};
	return out.findings.map((f) => f.message);
}

describe("config reload (module, real runtime)", () => {
	test("a valid edit applies, with one config.reloaded event naming the changed top-level keys", async () => {
		const w = await watching();
		const old = w.read(CONFIG);
		expect(w.p.rt.config.turns.lease_seconds).toBe(600);
		const edited = old.replace("lease_seconds: 600", "lease_seconds: 123");
		expect(edited).not.toBe(old);
		writeFileSync(join(w.p.root, CONFIG), edited);

		await w.reloader.poll();
		expect(w.p.rt.config.turns.lease_seconds).toBe(600); // seen, not yet settled
		await w.reloader.poll();
		expect(w.p.rt.config.turns.lease_seconds).toBe(123);
		const events = await w.reloads();
		expect(events.map((e) => e.payload)).toEqual([
			{
				file: ".roundtable/config.yaml",
				sha256: sha256(edited),
				previous_sha256: sha256(old),
				changed_keys: ["turns"],
				needs_restart: [],
			},
		]);
		expect(w.logs).toEqual([
			`roundtable: reloaded .roundtable/config.yaml (${sha256(edited).slice(0, 12)}): changed turns`,
		]);

		// The same content written again (a touch) is no revision.
		writeFileSync(join(w.p.root, CONFIG), edited);
		await w.settle();
		expect(await w.reloads()).toHaveLength(1);
	});

	test("a broken YAML edit keeps the running config and logs the error line; fixing it applies", async () => {
		const w = await watching();
		const old = w.read(CONFIG);
		w.save(CONFIG, old.replace("lease_seconds: 600", "lease_seconds: [300"));
		await w.settle();
		expect(w.p.rt.config.turns.lease_seconds).toBe(600);
		expect(w.logs).toHaveLength(1);
		expect(w.logs[0]).toMatch(
			/^roundtable: config not reloaded, the running config stays: \.roundtable\/config\.yaml:\d+: invalid YAML: /,
		);
		expect(await w.reloads()).toEqual([]);

		w.save(CONFIG, old.replace("lease_seconds: 600", "lease_seconds: soon"));
		await w.settle();
		expect(w.logs[1]).toMatch(
			/^roundtable: config not reloaded, .*config\.yaml:\d+: 'turns\.lease_seconds' /,
		);
		w.save(CONFIG, old.replace("lease_seconds: 600", "lease_seconds: 300"));
		await w.settle();
		expect(w.p.rt.config.turns.lease_seconds).toBe(300);
		const [event] = await w.reloads();
		// previous is what ran, not the rejected versions.
		expect(event?.payload).toMatchObject({ previous_sha256: sha256(old), changed_keys: ["turns"] });
	});

	test("storage, mcp and limits changes need a restart: logged, not applied; the rest applies", async () => {
		const w = await watching();
		const running = structuredClone(w.p.rt.config);
		const edited = w
			.read(CONFIG)
			.replace(/http_address: .*/, "http_address: 127.0.0.1:9911")
			.replace(/sqlite_path: .*/, "sqlite_path: .roundtable/elsewhere.db")
			.replace(/max_connections: \d+/, "max_connections: 7")
			.replace(/default_ttl_seconds: \d+/, "default_ttl_seconds: 60");
		w.save(CONFIG, edited);
		await w.settle();
		expect(w.p.rt.config.mcp).toEqual(running.mcp);
		expect(w.p.rt.config.storage).toEqual(running.storage);
		expect(w.p.rt.config.limits).toEqual(running.limits);
		expect(w.p.rt.config.claims.default_ttl_seconds).toBe(60);
		const [event] = await w.reloads();
		expect(event?.payload).toMatchObject({
			changed_keys: ["claims", "limits", "mcp", "storage"],
			needs_restart: ["limits.max_connections", "mcp.http_address", "storage.sqlite_path"],
		});
		expect(w.logs).toContain(
			"roundtable: .roundtable/config.yaml: limits.max_connections, mcp.http_address, storage.sqlite_path changed; that needs a restart (the running value stays until then)",
		);
		// A claim made now takes the new default lease.
		const task = (await w.p.call("task.create", { title: "t", body_md: "b" })) as { task: { id: string } };
		const { claim } = (await w.p.call("resource.claim", {
			agent_id: "implementer-1",
			task_id: task.task.id,
			resource_type: "file",
			resource_id: "file:README.md",
			claim_type: "write",
		})) as { claim: { expires_at: string; created_at: string } };
		expect(Date.parse(claim.expires_at) - Date.parse(claim.created_at)).toBe(60_000);
	});

	test("back-to-back same-size in-place writes are each applied", async () => {
		const w = await watching();
		const old = w.read(CONFIG);
		for (const seconds of [111, 222, 333]) {
			writeFileSync(join(w.p.root, CONFIG), old.replace("lease_seconds: 600", `lease_seconds: ${seconds}`));
			await w.settle();
			expect(w.p.rt.config.turns.lease_seconds).toBe(seconds);
		}
		expect(await w.reloads()).toHaveLength(3);
	});

	test("after a config reload the agents are synced", async () => {
		const w = await watching();
		const edited = w.read(CONFIG).replace("implementers: { count: 2,", "implementers: { count: 3,");
		w.save(CONFIG, edited);
		await w.settle();
		const events = await allEvents(w.p);
		const tail = events.slice(events.findIndex((e) => e.type === "config.reloaded"));
		expect(tail.map((e) => [e.type, e.payload.agent_id ?? e.payload.changed_keys])).toEqual([
			["config.reloaded", ["agents"]],
			["agent.registered", "implementer-3"],
		]);
		expect(w.logs).toContain("roundtable: agents synced: added implementer-3");
	});
});

describe("policy reload (module, real runtime)", () => {
	test("the owner holds the policy: a valid edit applies, a broken one keeps the last good", async () => {
		const w = await watching((root) =>
			writeFileSync(join(root, "deploy.sh"), "#!/bin/sh\nfrobnicate --all\n"),
		);
		const old = w.read(POLICY);
		expect(policyOf(w.p.rt)).toBe(w.p.rt.policy as Policy);
		expect(await reviewFindings(w.p)).toEqual([]);

		w.save(POLICY, FROBNICATE);
		await w.settle();
		expect(await reviewFindings(w.p)).toEqual(['dangerous command "frobnicate"']);
		expect((await w.reloads()).map((e) => e.payload)).toEqual([
			{ file: POLICY, sha256: sha256(FROBNICATE), previous_sha256: sha256(old), changed_keys: ["commands"] },
		]);

		writeFileSync(join(w.p.root, POLICY), BROKEN_POLICY);
		await w.settle();
		expect(w.logs.at(-1)).toBe(
			"roundtable: policy not reloaded, the running policy stays: POLICIES.ROUNDTABLE.md:6: 'consensus.default.approvals_required' must be an integer of zero or more, or null (was \"lots\")",
		);
		expect(policyOf(w.p.rt)).not.toBeInstanceOf(PolicyError);
		expect(await reviewFindings(w.p)).toEqual(['dangerous command "frobnicate"']);
		expect(await w.reloads()).toHaveLength(1);

		// Gone: the defaults apply, as for a project without the file.
		rmSync(join(w.p.root, POLICY));
		await w.settle();
		expect(await reviewFindings(w.p)).toEqual([]);
		expect((await w.reloads()).at(-1)?.payload).toMatchObject({
			sha256: null,
			previous_sha256: sha256(FROBNICATE),
		});
	});

	test("a policy bad from the start fails the gate with its message until a valid one is saved", async () => {
		const w = await watching((root) => writeFileSync(join(root, POLICY), BROKEN_POLICY));
		const held = policyOf(w.p.rt);
		expect(held).toBeInstanceOf(PolicyError);
		expect((held as PolicyError).message).toMatch(/^POLICIES\.ROUNDTABLE\.md:6: .*approvals_required/);
		expect(w.logs).toEqual([
			`roundtable: the policy does not load, so the policy gate fails: ${(held as PolicyError).message}`,
		]);

		// Still bad, elsewhere: the gate reports the file's current problem; no revision applied.
		const worse = `\n\n${BROKEN_POLICY}`;
		w.save(POLICY, worse);
		await w.settle();
		expect((policyOf(w.p.rt) as PolicyError).message).toMatch(/^POLICIES\.ROUNDTABLE\.md:8: /);
		expect(await w.reloads()).toEqual([]);

		w.save(POLICY, FROBNICATE);
		await w.settle();
		expect(policyOf(w.p.rt)).not.toBeInstanceOf(PolicyError);
		expect((await w.reloads()).map((e) => e.payload)).toEqual([
			{ file: POLICY, sha256: sha256(FROBNICATE), previous_sha256: sha256(worse), changed_keys: [] },
		]);
		expect(w.logs.at(-1)).toBe(
			`roundtable: reloaded ${POLICY} (${sha256(FROBNICATE).slice(0, 12)}): it loads again`,
		);
	});

	test("a policy that cannot be read at start is held as that error; once readable it applies", async () => {
		const w = await watching((root) => {
			rmSync(join(root, POLICY));
			mkdirSync(join(root, POLICY));
		});
		expect((policyOf(w.p.rt) as PolicyError).message).toMatch(/^POLICIES\.ROUNDTABLE\.md:0: cannot read: /);
		rmSync(join(w.p.root, POLICY), { recursive: true });
		writeFileSync(join(w.p.root, POLICY), FROBNICATE);
		await w.settle();
		expect(policyOf(w.p.rt)).not.toBeInstanceOf(PolicyError);
		expect((await w.reloads()).map((e) => e.payload)).toEqual([
			{ file: POLICY, sha256: sha256(FROBNICATE), previous_sha256: null, changed_keys: [] },
		]);
	});

	test("its own timer reloads; after stop nothing is", async () => {
		const w = await watching(undefined, 20);
		w.save(POLICY, FROBNICATE);
		await until(async () => (await w.reloads()).length > 0, 10_000, "the timer's reload");
		await w.reloader.stop();
		w.save(POLICY, BROKEN_POLICY);
		await Bun.sleep(200);
		await w.settle();
		expect(await w.reloads()).toHaveLength(1);
		expect(w.logs).toHaveLength(1);
	});
});

// ---- a real owner ----

const spawned: Subprocess[] = [];
afterAll(async () => {
	for (const proc of spawned) {
		if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
		await proc.exited;
	}
});

/** `mcp serve` on `root`; resolves after its ready line, with its stderr gathered as it comes. */
async function serve(root: string) {
	const proc = Bun.spawn([process.execPath, MAIN, "mcp", "serve", "--root", root], {
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
	});
	spawned.push(proc);
	const out = { stderr: "" };
	(async () => {
		const decoder = new TextDecoder();
		for await (const chunk of proc.stderr) out.stderr += decoder.decode(chunk, { stream: true });
	})();
	const { ready } = await readyLine(proc, 20_000, () => out.stderr);
	const socket = /socket=(\S+)/.exec(ready)?.[1] as string;
	return { proc, out, socket };
}

describe("a real owner (mcp serve)", () => {
	test("reloads config and policy; its calls see the new values; bad edits keep the old ones", async () => {
		const p = await makeProject();
		writeFileSync(join(p.root, "deploy.sh"), "#!/bin/sh\nfrobnicate --all\n");
		const owner = await serve(p.root);
		const call = async (tool: string, args: unknown) => {
			const reply = await callSocket(owner.socket, tool, args);
			if (!reply.ok) throw new Error(`${tool}: ${reply.error}`);
			return reply.result as Record<string, unknown>;
		};
		const task = (await call("task.create", { title: "t", body_md: "b" })) as { task: { id: string } };
		let n = 0;
		const lease = async () => {
			n++;
			const { claim } = (await call("resource.claim", {
				agent_id: "implementer-1",
				task_id: task.task.id,
				resource_type: "file",
				resource_id: `file:f${n}.txt`,
				claim_type: "write",
			})) as { claim: { expires_at: string; created_at: string } };
			return (Date.parse(claim.expires_at) - Date.parse(claim.created_at)) / 1000;
		};
		const reloads = async () => (await allEvents(p)).filter((e) => e.type === "config.reloaded");
		expect(await lease()).toBe(900);

		const config = readFileSync(join(p.root, CONFIG), "utf8");
		const edited = config.replace(/default_ttl_seconds: \d+/, "default_ttl_seconds: 120");
		writeFileSync(join(p.root, CONFIG), edited);
		const [event] = await until(
			async () => {
				const got = await reloads();
				return got.length > 0 ? got : undefined;
			},
			10_000,
			"the config reload",
		);
		expect(event?.payload).toEqual({
			file: ".roundtable/config.yaml",
			sha256: sha256(edited),
			previous_sha256: sha256(config),
			changed_keys: ["claims"],
			needs_restart: [],
		});
		expect(await lease()).toBe(120);

		writeFileSync(join(p.root, CONFIG), edited.replace("default_ttl_seconds: 120", "default_ttl_seconds: {"));
		await until(
			() =>
				/config not reloaded, the running config stays: \.roundtable\/config\.yaml:\d+: invalid YAML/.test(
					owner.out.stderr,
				),
			10_000,
			"the error line",
		);
		expect(await lease()).toBe(120);

		const findings = async () =>
			((await call("security.review", { resource_id: "file:deploy.sh" })) as { findings: unknown[] }).findings
				.length;
		expect(await findings()).toBe(0);
		writeFileSync(join(p.root, POLICY), FROBNICATE);
		await until(
			async () => (await reloads()).some((e) => e.payload.file === POLICY),
			10_000,
			"the policy reload",
		);
		expect(await findings()).toBe(1);
		writeFileSync(join(p.root, POLICY), BROKEN_POLICY);
		await until(
			() =>
				owner.out.stderr.includes("policy not reloaded, the running policy stays: POLICIES.ROUNDTABLE.md:6:"),
			10_000,
			"the policy error line",
		);
		expect(await findings()).toBe(1);
		expect((await reloads()).length).toBe(2);

		owner.proc.kill("SIGTERM");
		expect(await owner.proc.exited).toBe(0);
	}, 30_000);
});
