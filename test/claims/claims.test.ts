// resource.claim, .release, .renew, .claim_status, .get and .search, plus the operator's
// resource.revoke and resource.expire (the expiry sweep), through the real dispatcher and a real SQLite database: the mode matrix,
// overlap rules, the state machine, base hashes, reconcile, filters and paging, and events.
import { describe, expect, test } from "bun:test";
import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { argNames, findTool } from "../../src/registry/index.ts";
import type { Runtime } from "../../src/runtime.ts";
import type { ClaimRecord, ResourceRecord } from "../../src/vocabulary/records.ts";
import {
	allEvents,
	disableAgent,
	expectDeclaredOutput,
	makeProject,
	type Project,
	RFC3339_MS_UTC,
	tempDir,
	UUID7,
	write,
} from "../_helpers/helpers.ts";

const CLAIM_ID = new RegExp(`^C-${UUID7}$`);
const MODES = ["read", "write", "review", "exclusive"] as const;
type Mode = (typeof MODES)[number];

const sha256 = (data: string | Uint8Array) => new Bun.CryptoHasher("sha256").update(data).digest("hex");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** The operator's sweep (`claims expire`): what it recorded as expired. */
const expireDueClaims = async (rt: Runtime, at?: string) =>
	(await call(rt, "resource.expire", at === undefined ? {} : { at }, operatorContext())).claims;
/** The operator's revoke (`claims revoke`). */
const revokeClaim = async (rt: Runtime, claimId: string, reason: string) =>
	(await call(rt, "resource.revoke", { claim_id: claimId, reason }, operatorContext())).claim;

interface ClaimOut {
	claim: ClaimRecord;
	resource: ResourceRecord;
	duplicate: boolean;
}

interface Table {
	p: Project;
	taskId: string;
	/** resource.claim with task_id and claim_type write filled in; checks the declared output. */
	claim(args: Record<string, unknown>): Promise<ClaimOut>;
	file(agent: string, path: string, mode?: Mode, extra?: Record<string, unknown>): Promise<ClaimOut>;
	symbol(
		agent: string,
		path: string,
		name: string,
		mode?: Mode,
		extra?: Record<string, unknown>,
	): Promise<ClaimOut>;
	dir(agent: string, path: string, mode?: Mode): Promise<ClaimOut>;
	/** resource.claim that must fail; returns the error. */
	refuse(args: Record<string, unknown>): ReturnType<Project["fail"]>;
	call(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
	write(path: string, text: string): void;
	events(type: string): Promise<Awaited<ReturnType<typeof allEvents>>>;
}

async function table(config?: string): Promise<Table> {
	const p = await makeProject(config === undefined ? {} : { config });
	const created = (await p.call("task.create", { title: "Claims", body_md: "Hold things." })) as {
		task: { id: string };
	};
	const taskId = created.task.id;
	const call = async (tool: string, args: Record<string, unknown>) => {
		const out = await p.call(tool, args);
		expectDeclaredOutput(tool, out);
		return out;
	};
	const claim = async (args: Record<string, unknown>) =>
		(await call("resource.claim", { task_id: taskId, claim_type: "write", ...args })) as unknown as ClaimOut;
	return {
		p,
		taskId,
		call,
		claim,
		file: (agent, path, mode = "write", extra = {}) =>
			claim({
				agent_id: agent,
				resource_type: "file",
				resource_id: `file:${path}`,
				claim_type: mode,
				...extra,
			}),
		symbol: (agent, path, name, mode = "write", extra = {}) =>
			claim({
				agent_id: agent,
				resource_type: "symbol",
				resource_id: `symbol:${path}#${name}`,
				claim_type: mode,
				...extra,
			}),
		dir: (agent, path, mode = "write") =>
			claim({
				agent_id: agent,
				resource_type: "directory",
				resource_id: `directory:${path === "." ? "" : path}`,
				path,
				claim_type: mode,
			}),
		refuse: (args) => p.fail("resource.claim", { task_id: taskId, claim_type: "write", ...args }),
		write: (path, text) => write(p.root, path, text),
		events: async (type) => (await allEvents(p)).filter((e) => e.type === type),
	};
}

/** The claim succeeds (true) or is refused with `conflict` (false); anything else fails the test. */
async function outcome(run: () => Promise<unknown>): Promise<boolean> {
	try {
		await run();
		return true;
	} catch (err) {
		expect((err as { code?: string }).code).toBe("conflict");
		return false;
	}
}

const SHAPES = [
	"export function area(w: number, h: number): number {",
	"\treturn w * h;",
	"}",
	"",
	"export class Circle {",
	"\tconstructor(readonly r: number) {}",
	"\tcircumference(): number {",
	"\t\treturn 2 * Math.PI * this.r;",
	"\t}",
	"}",
	"",
	"export const UNIT = 1;",
	"",
].join("\n");

describe("resource.claim: the mode matrix", () => {
	// Reference §6: exclusive conflicts with everything, write with write; the rest share.
	const expected: Record<Mode, Record<Mode, boolean>> = {
		read: { read: false, write: false, review: false, exclusive: true },
		write: { read: false, write: true, review: false, exclusive: true },
		review: { read: false, write: false, review: false, exclusive: true },
		exclusive: { read: true, write: true, review: true, exclusive: true },
	};

	test("all 16 pairs on the same file between two agents", async () => {
		const t = await table();
		const seen: string[] = [];
		const want: string[] = [];
		for (const held of MODES) {
			for (const requested of MODES) {
				const path = `matrix/${held}-${requested}.ts`;
				await t.file("implementer-1", path, held);
				const ok = await outcome(() => t.file("implementer-2", path, requested));
				seen.push(`${held}×${requested}: ${ok ? "ok" : "CONFLICT"}`);
				want.push(`${held}×${requested}: ${expected[held][requested] ? "CONFLICT" : "ok"}`);
			}
		}
		expect(seen).toEqual(want);
	});
});

describe("resource.claim: overlap", () => {
	test("file ↔ file: the same path overlaps, another path does not", async () => {
		const t = await table();
		await t.file("implementer-1", "src/a.ts");
		expect(await outcome(() => t.file("implementer-2", "src/a.ts"))).toBe(false);
		expect(await outcome(() => t.file("implementer-2", "src/b.ts"))).toBe(true);
		// The same file named by path with a leading ./ is the same resource.
		expect(
			await outcome(() =>
				t.claim({
					agent_id: "tester-1",
					resource_type: "file",
					resource_id: "file:src/a.ts",
					path: "./src/a.ts",
				}),
			),
		).toBe(false);
	});

	test("file ↔ symbol: a symbol overlaps its own file only, in both orders", async () => {
		const t = await table();
		await t.file("implementer-1", "src/a.ts");
		expect(
			await outcome(() =>
				t.symbol("implementer-2", "src/a.ts", "f", "write", { start_line: 1, end_line: 2 }),
			),
		).toBe(false);
		expect(
			await outcome(() =>
				t.symbol("implementer-2", "src/b.ts", "f", "write", { start_line: 1, end_line: 2 }),
			),
		).toBe(true);
		// symbol first, then the file
		expect(await outcome(() => t.file("tester-1", "src/b.ts"))).toBe(false);
		expect(await outcome(() => t.file("tester-1", "src/c.ts"))).toBe(true);
	});

	test("symbol ↔ symbol by line ranges: overlapping ranges conflict, disjoint ranges in one file do not", async () => {
		const t = await table();
		await t.symbol("implementer-1", "lib/x.ts", "one", "write", { start_line: 10, end_line: 20 });
		expect(
			await outcome(() =>
				t.symbol("implementer-2", "lib/x.ts", "two", "write", { start_line: 21, end_line: 30 }),
			),
		).toBe(true);
		expect(
			await outcome(() =>
				t.symbol("tester-1", "lib/x.ts", "three", "write", { start_line: 5, end_line: 10 }),
			),
		).toBe(false);
		expect(
			await outcome(() => t.symbol("tester-1", "lib/x.ts", "four", "write", { start_line: 1, end_line: 9 })),
		).toBe(true);
		// shared boundary line
		expect(
			await outcome(() =>
				t.symbol("reviewer-1", "lib/x.ts", "five", "write", { start_line: 30, end_line: 31 }),
			),
		).toBe(false);
		// the same lines in another file
		expect(
			await outcome(() =>
				t.symbol("reviewer-1", "lib/y.ts", "one", "write", { start_line: 10, end_line: 20 }),
			),
		).toBe(true);
	});

	test("symbol ↔ symbol with ranges from repo.symbols for a real TypeScript file", async () => {
		const t = await table();
		t.write("src/shapes.ts", SHAPES);
		const symbols = (await t.call("repo.symbols", { path: "src/shapes.ts" })) as {
			symbols: { name: string; start_line: number; end_line: number; resource_id: string }[];
		};
		const lines = (name: string) => {
			const s = symbols.symbols.find((x) => x.name === name);
			if (!s) throw new Error(`repo.symbols has no ${name}`);
			return [s.start_line, s.end_line];
		};
		const circle = await t.symbol("implementer-1", "src/shapes.ts", "Circle");
		expect([circle.claim.start_line, circle.claim.end_line]).toEqual(lines("Circle"));
		expect([circle.resource.start_line, circle.resource.end_line]).toEqual(lines("Circle"));
		expect(circle.resource.language).toBe("typescript");

		const area = await t.symbol("implementer-2", "src/shapes.ts", "area");
		expect([area.claim.start_line, area.claim.end_line]).toEqual(lines("area"));
		// The method lies inside the class's lines: it overlaps Circle, not area.
		const err = await t.refuse({
			agent_id: "tester-1",
			resource_type: "symbol",
			resource_id: "symbol:src/shapes.ts#Circle.circumference",
		});
		expect(err.code).toBe("conflict");
		expect(err.details).toMatchObject({ claim_id: circle.claim.id, agent_id: "implementer-1" });
		const unit = await t.symbol("tester-1", "src/shapes.ts", "UNIT");
		expect([unit.claim.start_line, unit.claim.end_line]).toEqual(lines("UNIT"));
	});

	test("given lines are used as given, even where repo.symbols knows other lines", async () => {
		const t = await table();
		t.write("src/shapes.ts", SHAPES);
		const out = await t.symbol("implementer-1", "src/shapes.ts", "Circle", "write", {
			start_line: 5,
			end_line: 6,
		});
		expect([out.claim.start_line, out.claim.end_line]).toEqual([5, 6]);
		// Lines 7-9 (the method) are then free for someone else.
		expect(await outcome(() => t.symbol("implementer-2", "src/shapes.ts", "Circle.circumference"))).toBe(
			true,
		);
	});

	test("directory ↔ file: inside overlaps, outside (including a name that merely shares the prefix) does not", async () => {
		const t = await table();
		await t.dir("implementer-1", "src");
		expect(await outcome(() => t.file("implementer-2", "src/a.ts"))).toBe(false);
		expect(await outcome(() => t.file("implementer-2", "src/deep/er/b.ts"))).toBe(false);
		expect(
			await outcome(() =>
				t.symbol("implementer-2", "src/c.ts", "f", "write", { start_line: 1, end_line: 1 }),
			),
		).toBe(false);
		expect(await outcome(() => t.file("implementer-2", "srcfoo/a.ts"))).toBe(true);
		expect(await outcome(() => t.file("implementer-2", "src.ts"))).toBe(true);
		expect(await outcome(() => t.file("implementer-2", "lib/src/a.ts"))).toBe(true);
		// file first, then the directory around it
		await t.file("tester-1", "docs/guide.md");
		expect(await outcome(() => t.dir("reviewer-1", "docs"))).toBe(false);
		expect(await outcome(() => t.dir("reviewer-1", "doc"))).toBe(true);
	});

	test("directory ↔ directory: nesting overlaps in both directions, siblings do not", async () => {
		const t = await table();
		await t.dir("implementer-1", "a/b");
		expect(await outcome(() => t.dir("implementer-2", "a"))).toBe(false);
		expect(await outcome(() => t.dir("implementer-2", "a/b"))).toBe(false);
		expect(await outcome(() => t.dir("implementer-2", "a/b/c"))).toBe(false);
		expect(await outcome(() => t.dir("implementer-2", "a/bc"))).toBe(true);
		expect(await outcome(() => t.dir("implementer-2", "a/c"))).toBe(true);
	});

	test("the root directory (`directory:` with path '.') covers every path", async () => {
		const t = await table();
		const root = await t.dir("implementer-1", ".");
		expect(root.claim.resource_id).toBe("directory:");
		expect(root.claim.path).toBe("");
		expect(await outcome(() => t.file("implementer-2", "a.ts"))).toBe(false);
		expect(await outcome(() => t.file("implementer-2", "deep/down/b.ts"))).toBe(false);
		expect(await outcome(() => t.dir("implementer-2", "deep"))).toBe(false);
		expect(
			await outcome(() => t.symbol("implementer-2", "x.ts", "f", "write", { start_line: 1, end_line: 1 })),
		).toBe(false);
		// …but not resources outside the repository's paths
		expect(
			await outcome(() =>
				t.claim({ agent_id: "implementer-2", resource_type: "endpoint", resource_id: "GET /users" }),
			),
		).toBe(true);
		// and a file claimed first blocks a later root claim
		const t2 = await table();
		await t2.file("implementer-1", "deep/down/b.ts");
		expect(await outcome(() => t2.dir("implementer-2", "."))).toBe(false);
	});

	test("other types (endpoint) overlap only by identical id", async () => {
		const t = await table();
		await t.claim({ agent_id: "implementer-1", resource_type: "endpoint", resource_id: "GET /users" });
		expect(
			await outcome(() =>
				t.claim({ agent_id: "implementer-2", resource_type: "endpoint", resource_id: "GET /users" }),
			),
		).toBe(false);
		expect(
			await outcome(() =>
				t.claim({ agent_id: "implementer-2", resource_type: "endpoint", resource_id: "GET /users/{id}" }),
			),
		).toBe(true);
		expect(
			await outcome(() =>
				t.claim({ agent_id: "implementer-2", resource_type: "schema", resource_id: "users" }),
			),
		).toBe(true);
		const out = await t.claim({
			agent_id: "tester-1",
			resource_type: "endpoint",
			resource_id: "POST /x",
			claim_type: "read",
		});
		expect(out.claim).toMatchObject({
			path: null,
			symbol: null,
			start_line: null,
			end_line: null,
			base_hash: "",
		});
		expect(out.resource).toMatchObject({ id: "POST /x", type: "endpoint", path: null, current_hash: "" });
	});
});

describe("resource.claim: own claims, duplicates and conflict details", () => {
	test("the same resource and mode for another task is a new claim, not a duplicate", async () => {
		const t = await table();
		const other = (await t.p.call("task.create", { title: "Other", body_md: "b" })) as {
			task: { id: string };
		};
		const first = await t.file("implementer-1", "src/a.ts");
		const second = await t.file("implementer-1", "src/a.ts", "write", { task_id: other.task.id });
		expect(second.duplicate).toBe(false);
		expect(second.claim.id).not.toBe(first.claim.id);
		expect(second.claim.task_id).toBe(other.task.id);
	});

	test("a file claim on a directory is refused with the directory claim to use instead", async () => {
		const t = await table();
		t.write("src/a.ts", "x\n");
		const err = await t.refuse({ agent_id: "implementer-1", resource_type: "file", resource_id: "file:src" });
		expect(err.code).toBe("invalid_argument");
		expect(err.details).toMatchObject({ field: "path", did_you_mean: "directory:src" });
		expect(
			(await t.refuse({ agent_id: "implementer-1", resource_type: "file", resource_id: "file:", path: "." }))
				.code,
		).toBe("invalid_argument");
	});

	test("an agent never conflicts with its own claims (write on a file and write on a symbol in it)", async () => {
		const t = await table();
		t.write("src/shapes.ts", SHAPES);
		const f = await t.file("implementer-1", "src/shapes.ts");
		const s = await t.symbol("implementer-1", "src/shapes.ts", "Circle");
		const x = await t.file("implementer-1", "src/shapes.ts", "exclusive");
		expect(new Set([f.claim.id, s.claim.id, x.claim.id]).size).toBe(3);
		for (const c of [f, s, x]) expect(c.duplicate).toBe(false);
		const live = (await t.call("resource.claim_status", { agent_id: "implementer-1", status: "active" })) as {
			claims: ClaimRecord[];
		};
		expect(live.claims.map((c) => c.id)).toEqual([f.claim.id, s.claim.id, x.claim.id]);
		// others are still blocked by them
		expect(await outcome(() => t.file("implementer-2", "src/shapes.ts", "read"))).toBe(false);
	});

	test("the same claim twice returns the first with duplicate: true and no second event", async () => {
		const t = await table();
		const first = await t.file("implementer-1", "src/a.ts", "write", { rationale: "fixing it" });
		expect(first.duplicate).toBe(false);
		expect(first.claim.id).toMatch(CLAIM_ID);
		expect(first.claim).toMatchObject({
			status: "active",
			agent_id: "implementer-1",
			task_id: t.taskId,
			claim_type: "write",
			resource_id: "file:src/a.ts",
			resource_type: "file",
			path: "src/a.ts",
			renewable: true,
			resume_policy: "hold",
			rationale: "fixing it",
			revision: 1,
			renewed_at: null,
			status_reason: null,
		});
		expect(first.claim.created_at).toMatch(RFC3339_MS_UTC);
		expect(first.claim.expires_at).toMatch(RFC3339_MS_UTC);
		// the default lease is 900 s
		const lease = Date.parse(first.claim.expires_at) - Date.parse(first.claim.created_at);
		expect(lease).toBe(900_000);
		const again = await t.file("implementer-1", "src/a.ts");
		expect(again.duplicate).toBe(true);
		expect(again.claim).toEqual(first.claim);
		const created = await t.events("claim.created");
		expect(created).toHaveLength(1);
		expect(created[0]).toMatchObject({
			actor_id: "implementer-1",
			task_id: t.taskId,
			payload: { claim_id: first.claim.id, resource_id: "file:src/a.ts", claim_type: "write" },
		});
		// another mode on the same resource is a new claim
		const read = await t.file("implementer-1", "src/a.ts", "read");
		expect(read.duplicate).toBe(false);
		expect(read.claim.id).not.toBe(first.claim.id);
	});

	test("a conflict names the holder: claim_id, agent_id, claim_type, resource_id, expires_at", async () => {
		const t = await table();
		const held = await t.dir("implementer-1", "src", "exclusive");
		const before = (await allEvents(t.p)).length;
		const err = await t.refuse({
			agent_id: "implementer-2",
			resource_type: "file",
			resource_id: "file:src/a.ts",
			claim_type: "read",
		});
		expect(err.code).toBe("conflict");
		expect(err.details).toEqual({
			claim_id: held.claim.id,
			agent_id: "implementer-1",
			claim_type: "exclusive",
			resource_id: "directory:src",
			expires_at: held.claim.expires_at,
		});
		expect(err.message).toContain(held.claim.id);
		expect(err.message).toContain("implementer-1");
		// a refused claim leaves nothing behind
		expect((await allEvents(t.p)).length).toBe(before);
		expect(await t.p.fail("resource.get", { resource_id: "file:src/a.ts" })).toMatchObject({
			code: "not_found",
		});
	});

	test("a chosen claim_id is used; one in use is already_exists", async () => {
		const t = await table();
		const out = await t.file("implementer-1", "src/a.ts", "write", { claim_id: "my-claim" });
		expect(out.claim.id).toBe("my-claim");
		const err = await t.refuse({
			agent_id: "implementer-2",
			resource_type: "file",
			resource_id: "file:src/b.ts",
			claim_id: "my-claim",
		});
		expect(err.code).toBe("already_exists");
	});
});

describe("expiry", () => {
	test("an expired claim does not block, reads as expired before any sweep, and the sweep records it once", async () => {
		const t = await table();
		const short = await t.file("implementer-1", "src/a.ts", "exclusive", { ttl_seconds: 1 });
		const err = await t.refuse({
			agent_id: "implementer-2",
			resource_type: "file",
			resource_id: "file:src/a.ts",
		});
		expect(err.code).toBe("conflict");
		await sleep(1100);

		// Before any sweep: expired everywhere it shows, and it no longer blocks.
		const status = (await t.call("resource.claim_status", { resource_id: "file:src/a.ts" })) as {
			claims: ClaimRecord[];
		};
		expect(status.claims.map((c) => [c.id, c.status])).toEqual([[short.claim.id, "expired"]]);
		const byStatus = (await t.call("resource.claim_status", { status: "expired" })) as {
			claims: ClaimRecord[];
		};
		expect(byStatus.claims.map((c) => c.id)).toEqual([short.claim.id]);
		const active = (await t.call("resource.claim_status", { status: "active" })) as { claims: ClaimRecord[] };
		expect(active.claims).toEqual([]);
		const got = (await t.call("resource.get", { resource_id: "file:src/a.ts" })) as { claims: ClaimRecord[] };
		expect(got.claims).toEqual([]);
		const state = (await t.p.call("table.get_state")) as { claims: ClaimRecord[] };
		expect(state.claims).toEqual([]);

		const next = await t.file("implementer-2", "src/a.ts");
		expect(next.claim.status).toBe("active");

		// The expired claim cannot be released or renewed.
		const rel = await t.p.fail("resource.release", { claim_id: short.claim.id, agent_id: "implementer-1" });
		expect(rel.code).toBe("failed_precondition");
		const ren = await t.p.fail("resource.renew", { claim_id: short.claim.id, agent_id: "implementer-1" });
		expect(ren.code).toBe("failed_precondition");
		expect(await t.events("claim.expired")).toEqual([]);

		// The sweep records it (and only it) with an event; a second sweep changes nothing.
		const swept = await expireDueClaims(t.p.rt);
		expect(swept.map((c) => [c.id, c.status])).toEqual([[short.claim.id, "expired"]]);
		const events = await t.events("claim.expired");
		expect(events).toHaveLength(1);
		expect(events[0]).toMatchObject({
			actor_id: "system",
			task_id: t.taskId,
			payload: { claim_id: short.claim.id, resource_id: "file:src/a.ts", agent_id: "implementer-1" },
		});
		expect(await expireDueClaims(t.p.rt)).toEqual([]);
		expect(await t.events("claim.expired")).toHaveLength(1);
		const after = (await t.call("resource.claim_status", { resource_id: "file:src/a.ts" })) as {
			claims: ClaimRecord[];
		};
		expect(after.claims.map((c) => [c.id, c.status])).toEqual([
			[short.claim.id, "expired"],
			[next.claim.id, "active"],
		]);
		expect(after.claims[0]?.status_reason).toBe("ttl elapsed");
	});

	test("a sweep at a future time expires exactly the claims due by then", async () => {
		const t = await table();
		const soon = await t.file("implementer-1", "src/a.ts", "write", { ttl_seconds: 60 });
		const late = await t.file("implementer-1", "src/b.ts", "write", { ttl_seconds: 7200 });
		const swept = await expireDueClaims(t.p.rt, inAnHour());
		expect(swept.map((c) => c.id)).toEqual([soon.claim.id]);
		const status = (await t.call("resource.claim_status", { agent_id: "implementer-1" })) as {
			claims: ClaimRecord[];
		};
		expect(status.claims.map((c) => [c.id, c.status])).toEqual([
			[soon.claim.id, "expired"],
			[late.claim.id, "active"],
		]);
		expect(await outcome(() => t.file("implementer-2", "src/a.ts"))).toBe(true);
		expect(await outcome(() => t.file("implementer-2", "src/b.ts"))).toBe(false);
	});
});

describe("the state machine", () => {
	test("release by the holder: released, event, and a second release is failed_precondition", async () => {
		const t = await table();
		const c = await t.file("implementer-1", "src/a.ts");
		const out = (await t.call("resource.release", { claim_id: c.claim.id, agent_id: "implementer-1" })) as {
			claim: ClaimRecord;
		};
		expect(out.claim).toMatchObject({ id: c.claim.id, status: "released", revision: 2 });
		const events = await t.events("claim.released");
		expect(events).toHaveLength(1);
		expect(events[0]).toMatchObject({
			actor_id: "implementer-1",
			task_id: t.taskId,
			payload: { claim_id: c.claim.id, resource_id: "file:src/a.ts", forced: false },
		});
		const again = await t.p.fail("resource.release", { claim_id: c.claim.id, agent_id: "implementer-1" });
		expect(again.code).toBe("failed_precondition");
		expect(await t.events("claim.released")).toHaveLength(1);
		// released claims do not block
		expect(await outcome(() => t.file("implementer-2", "src/a.ts"))).toBe(true);
		// nor can they be renewed
		const renew = await t.p.fail("resource.renew", { claim_id: c.claim.id, agent_id: "implementer-1" });
		expect(renew.code).toBe("failed_precondition");
	});

	test("release: a non-holder is permission_denied; no agent_id and no force is invalid_argument", async () => {
		const t = await table();
		const c = await t.file("implementer-1", "src/a.ts");
		const other = await t.p.fail("resource.release", { claim_id: c.claim.id, agent_id: "implementer-2" });
		expect(other.code).toBe("permission_denied");
		const anon = await t.p.fail("resource.release", { claim_id: c.claim.id });
		expect(anon.code).toBe("invalid_argument");
		expect(anon.details).toMatchObject({ field: "agent_id" });
		const unknown = await t.p.fail("resource.release", { claim_id: "C-nope", agent_id: "implementer-1" });
		expect(unknown.code).toBe("not_found");
		expect(await t.events("claim.released")).toEqual([]);
		const status = (await t.call("resource.claim_status", {})) as { claims: ClaimRecord[] };
		expect(status.claims.map((x) => x.status)).toEqual(["active"]);
	});

	test("forced release: needs a reason; with one the operator releases any claim and the event says so", async () => {
		const t = await table();
		const c = await t.file("implementer-1", "src/a.ts");
		const bare = await t.p.fail("resource.release", { claim_id: c.claim.id, force: true });
		expect(bare.code).toBe("invalid_argument");
		expect(bare.details).toMatchObject({ field: "reason" });
		const out = (await t.call("resource.release", {
			claim_id: c.claim.id,
			force: true,
			reason: "implementer-1 went away",
		})) as { claim: ClaimRecord };
		expect(out.claim.status).toBe("released");
		expect(out.claim.status_reason).toBe("implementer-1 went away");
		const events = await t.events("claim.released");
		expect(events).toHaveLength(1);
		expect(events[0]).toMatchObject({
			actor_id: "operator",
			payload: {
				claim_id: c.claim.id,
				agent_id: "implementer-1",
				forced: true,
				reason: "implementer-1 went away",
			},
		});
	});

	test("resource.revoke: revoked with an event; revoking twice, renewing or releasing it is failed_precondition", async () => {
		const t = await table();
		const c = await t.file("implementer-1", "src/a.ts");
		const revoked = await revokeClaim(t.p.rt, c.claim.id, "scope changed");
		expect(revoked).toMatchObject({ id: c.claim.id, status: "revoked", status_reason: "scope changed" });
		const events = await t.events("claim.revoked");
		expect(events).toHaveLength(1);
		expect(events[0]).toMatchObject({
			actor_id: "operator",
			task_id: t.taskId,
			payload: {
				claim_id: c.claim.id,
				resource_id: "file:src/a.ts",
				agent_id: "implementer-1",
				reason: "scope changed",
			},
		});
		await expect(revokeClaim(t.p.rt, c.claim.id, "again")).rejects.toMatchObject({
			code: "failed_precondition",
		});
		await expect(revokeClaim(t.p.rt, "C-missing", "why")).rejects.toMatchObject({ code: "not_found" });
		expect(await t.events("claim.revoked")).toHaveLength(1);
		const renew = await t.p.fail("resource.renew", { claim_id: c.claim.id, agent_id: "implementer-1" });
		expect(renew.code).toBe("failed_precondition");
		const release = await t.p.fail("resource.release", { claim_id: c.claim.id, agent_id: "implementer-1" });
		expect(release.code).toBe("failed_precondition");
		expect(await outcome(() => t.file("implementer-2", "src/a.ts"))).toBe(true);
	});

	test("renew extends an active claim's lease, with an event", async () => {
		const t = await table();
		const c = await t.file("implementer-1", "src/a.ts", "write", { ttl_seconds: 60 });
		const out = (await t.call("resource.renew", {
			claim_id: c.claim.id,
			agent_id: "implementer-1",
			ttl_seconds: 3600,
		})) as { claim: ClaimRecord };
		expect(out.claim.status).toBe("active");
		expect(Date.parse(out.claim.expires_at)).toBeGreaterThan(Date.parse(c.claim.expires_at));
		expect(Date.parse(out.claim.expires_at)).toBeGreaterThanOrEqual(Date.now() + 3_590_000);
		expect(out.claim.renewed_at).toMatch(RFC3339_MS_UTC);
		expect(out.claim.revision).toBe(c.claim.revision + 1);
		expect(out.claim.base_hash).toBe(c.claim.base_hash);
		const events = await t.events("claim.renewed");
		expect(events).toHaveLength(1);
		expect(events[0]).toMatchObject({
			actor_id: "implementer-1",
			payload: { claim_id: c.claim.id, expires_at: out.claim.expires_at },
		});
		// the renewed lease outlives a sweep that would have caught the old one
		expect(await expireDueClaims(t.p.rt, new Date(Date.now() + 120_000).toISOString())).toEqual([]);
	});

	test("renew: not renewable → failed_precondition; someone else → permission_denied", async () => {
		const t = await table();
		const fixed = await t.file("implementer-1", "src/a.ts", "write", { renewable: false });
		expect(fixed.claim.renewable).toBe(false);
		const err = await t.p.fail("resource.renew", { claim_id: fixed.claim.id, agent_id: "implementer-1" });
		expect(err.code).toBe("failed_precondition");
		const c = await t.file("implementer-1", "src/b.ts");
		const other = await t.p.fail("resource.renew", { claim_id: c.claim.id, agent_id: "implementer-2" });
		expect(other.code).toBe("permission_denied");
		const missing = await t.p.fail("resource.renew", { claim_id: "C-none", agent_id: "implementer-1" });
		expect(missing.code).toBe("not_found");
		expect(await t.events("claim.renewed")).toEqual([]);
	});

	test("a suspended claim: renew without rebase fails, with rebase it is active on the new base hash", async () => {
		const t = await table();
		t.write("src/a.ts", "one\n");
		const c = await t.file("implementer-1", "src/a.ts");
		expect(c.claim.base_hash).toBe(sha256("one\n"));
		t.write("src/a.ts", "two\n");
		const rec = (await t.call("resource.claim_status", { reconcile: true })) as { suspended: string[] };
		expect(rec.suspended).toEqual([c.claim.id]);

		const plain = await t.p.fail("resource.renew", { claim_id: c.claim.id, agent_id: "implementer-1" });
		expect(plain.code).toBe("failed_precondition");
		const other = await t.p.fail("resource.renew", {
			claim_id: c.claim.id,
			agent_id: "implementer-2",
			rebase: true,
		});
		expect(other.code).toBe("permission_denied");

		const out = (await t.call("resource.renew", {
			claim_id: c.claim.id,
			agent_id: "implementer-1",
			rebase: true,
		})) as { claim: ClaimRecord };
		expect(out.claim).toMatchObject({ status: "active", base_hash: sha256("two\n"), status_reason: null });
		const events = await t.events("claim.renewed");
		expect(events.at(-1)?.payload).toMatchObject({ claim_id: c.claim.id, rebased: true });
		const resource = (await t.call("resource.get", { resource_id: "file:src/a.ts" })) as {
			resource: ResourceRecord;
		};
		expect(resource.resource.current_hash).toBe(sha256("two\n"));
		// nothing is stale now
		const again = (await t.call("resource.claim_status", { reconcile: true })) as { suspended: string[] };
		expect(again.suspended).toEqual([]);
	});

	test("a suspended claim can be released by its holder or revoked", async () => {
		const t = await table();
		t.write("a.txt", "1");
		t.write("b.txt", "1");
		const a = await t.file("implementer-1", "a.txt");
		const b = await t.file("implementer-1", "b.txt");
		t.write("a.txt", "2");
		t.write("b.txt", "2");
		await t.call("resource.claim_status", { reconcile: true });
		const released = (await t.call("resource.release", {
			claim_id: a.claim.id,
			agent_id: "implementer-1",
		})) as {
			claim: ClaimRecord;
		};
		expect(released.claim.status).toBe("released");
		expect((await revokeClaim(t.p.rt, b.claim.id, "stale")).status).toBe("revoked");
		// …and once released, rebase cannot bring it back
		const back = await t.p.fail("resource.renew", {
			claim_id: a.claim.id,
			agent_id: "implementer-1",
			rebase: true,
		});
		expect(back.code).toBe("failed_precondition");
	});

	test("re-basing a suspended claim never leaves two agents holding conflicting live claims", async () => {
		const t = await table();
		t.write("src/a.ts", "one\n");
		const a = await t.file("implementer-1", "src/a.ts");
		t.write("src/a.ts", "two\n");
		await t.call("resource.claim_status", { reconcile: true });
		// Whether a suspended claim still blocks others or its re-activation re-checks conflicts, the
		// two write claims must never both be live.
		const bOk = await outcome(() => t.file("implementer-2", "src/a.ts"));
		const aOk = await outcome(() =>
			t.call("resource.renew", { claim_id: a.claim.id, agent_id: "implementer-1", rebase: true }),
		);
		const live = (await t.call("resource.claim_status", {
			resource_id: "file:src/a.ts",
			status: "active",
		})) as {
			claims: ClaimRecord[];
		};
		expect({ bOk, aOk, activeWriters: live.claims.map((c) => c.agent_id) }).toEqual(
			bOk
				? { bOk, aOk: false, activeWriters: ["implementer-2"] }
				: { bOk, aOk: true, activeWriters: ["implementer-1"] },
		);
	});
});

describe("resource.claim: arguments", () => {
	test("resource_id and resource_type must agree", async () => {
		const t = await table();
		const err = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "file",
			resource_id: "directory:src",
		});
		expect(err.code).toBe("invalid_argument");
		expect(err.details).toMatchObject({ field: "resource_id" });
		const sym = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "directory",
			resource_id: "file:src/a.ts",
		});
		expect(sym.code).toBe("invalid_argument");
	});

	test("a non-canonical file id is invalid_argument with the canonical id as did_you_mean", async () => {
		const t = await table();
		for (const [id, path, canonical] of [
			["file:./src/a.ts", undefined, "file:src/a.ts"],
			["file:src//a.ts", undefined, "file:src/a.ts"],
			["file:src/b.ts", "src/a.ts", "file:src/a.ts"],
			["src/a.ts", "src/a.ts", "file:src/a.ts"],
			["directory:src/", undefined, "directory:src"],
		] as const) {
			const type = id.startsWith("directory:") ? "directory" : "file";
			const err = await t.refuse({
				agent_id: "implementer-1",
				resource_type: type,
				resource_id: id,
				...(path !== undefined && { path }),
			});
			expect([id, err.code, err.details?.did_you_mean]).toEqual([id, "invalid_argument", canonical]);
		}
		expect(await t.events("claim.created")).toEqual([]);
	});

	test("file claims take their path from path or from the file: id; neither is invalid_argument", async () => {
		const t = await table();
		const fromId = await t.claim({
			agent_id: "implementer-1",
			resource_type: "file",
			resource_id: "file:src/a.ts",
		});
		expect(fromId.claim.path).toBe("src/a.ts");
		const withPath = await t.claim({
			agent_id: "implementer-1",
			resource_type: "file",
			resource_id: "file:src/b.ts",
			path: "src/b.ts",
		});
		expect(withPath.claim).toMatchObject({ path: "src/b.ts", resource_id: "file:src/b.ts" });
		expect(withPath.resource).toMatchObject({
			id: "file:src/b.ts",
			type: "file",
			path: "src/b.ts",
			language: "typescript",
		});
		const none = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "file",
			resource_id: "just-a-name",
		});
		expect(none.code).toBe("invalid_argument");
		expect(none.details).toMatchObject({ field: "path" });
	});

	test("paths outside the repository or into .git/ and .roundtable/ are refused by the guard", async () => {
		const t = await table();
		for (const path of [
			"../escape.ts",
			"/etc/passwd",
			".git/config",
			".roundtable/config.yaml",
			"a/../../x.ts",
		]) {
			const err = await t.refuse({
				agent_id: "implementer-1",
				resource_type: "file",
				resource_id: `file:${path}`,
				path,
			});
			expect([path, err.code]).toEqual([path, "permission_denied"]);
		}
		const dir = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "directory",
			resource_id: "directory:.git",
			path: ".git",
		});
		expect(dir.code).toBe("permission_denied");
		expect(await t.events("claim.created")).toEqual([]);
	});

	test("a path through a symlink that leaves the repository is refused, also for a file not created yet", async () => {
		const t = await table();
		const outside = tempDir("rt-claims-outside-");
		writeFileSync(join(outside, "there.ts"), "outside\n");
		symlinkSync(outside, join(t.p.root, "out"));
		const linkDir = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "directory",
			resource_id: "directory:out",
		});
		expect(linkDir.code).toBe("permission_denied");
		const existing = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "file",
			resource_id: "file:out/there.ts",
		});
		expect(existing.code).toBe("permission_denied");
		const notYet = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "file",
			resource_id: "file:out/new.ts",
		});
		expect(notYet.code).toBe("permission_denied");
		expect(await t.events("claim.created")).toEqual([]);
	});

	test("symbol claims: an unknown symbol without lines is not_found; start_line without end_line is invalid", async () => {
		const t = await table();
		t.write("src/shapes.ts", SHAPES);
		const missing = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "symbol",
			resource_id: "symbol:src/shapes.ts#Square",
		});
		expect(missing.code).toBe("not_found");
		const half = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "symbol",
			resource_id: "symbol:src/shapes.ts#Circle",
			start_line: 5,
		});
		expect(half.code).toBe("invalid_argument");
		const otherHalf = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "symbol",
			resource_id: "symbol:src/shapes.ts#Circle",
			end_line: 5,
		});
		expect(otherHalf.code).toBe("invalid_argument");
		const backwards = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "symbol",
			resource_id: "symbol:src/shapes.ts#Circle",
			start_line: 9,
			end_line: 5,
		});
		expect(backwards.code).toBe("invalid_argument");
		const lineOnFile = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "file",
			resource_id: "file:src/shapes.ts",
			start_line: 1,
			end_line: 2,
		});
		expect(lineOnFile.code).toBe("invalid_argument");
		// With lines, a symbol repo.symbols does not know is claimed as given.
		const given = await t.symbol("implementer-1", "src/shapes.ts", "Square", "write", {
			start_line: 12,
			end_line: 12,
		});
		expect(given.claim).toMatchObject({ symbol: "Square", start_line: 12, end_line: 12 });
		expect(await t.events("claim.created")).toHaveLength(1);
	});

	test("unknown agent → not_found with did_you_mean; disabled agent → failed_precondition; unknown task → not_found", async () => {
		const t = await table();
		const unknown = await t.refuse({
			agent_id: "implementr-1",
			resource_type: "file",
			resource_id: "file:a.ts",
		});
		expect(unknown.code).toBe("not_found");
		expect(unknown.details).toMatchObject({ did_you_mean: "implementer-1" });

		await disableAgent(t.p, "implementer-2");
		const disabled = await t.refuse({
			agent_id: "implementer-2",
			resource_type: "file",
			resource_id: "file:a.ts",
		});
		expect(disabled.code).toBe("failed_precondition");

		const task = await t.refuse({
			agent_id: "implementer-1",
			task_id: "T-missing",
			resource_type: "file",
			resource_id: "file:a.ts",
		});
		expect(task.code).toBe("not_found");
		expect(await t.events("claim.created")).toEqual([]);
	});

	test("hidden or unknown arguments are rejected, and the schema lists every argument the handler reads", async () => {
		const t = await table();
		const err = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "file",
			resource_id: "file:a.ts",
			actor_id: "x",
		});
		expect(err.code).toBe("invalid_argument");
		const tool = findTool("resource.claim");
		if (!tool) throw new Error("no resource.claim");
		const names = argNames(tool);
		for (const name of [
			"agent_id",
			"path",
			"symbol",
			"start_line",
			"end_line",
			"ttl_seconds",
			"renewable",
			"resume_policy",
			"base_hash",
			"rationale",
			"claim_id",
		]) {
			expect(names).toContain(name);
		}
		// path, symbol and lines on a non-path type are invalid
		const endpoint = await t.refuse({
			agent_id: "implementer-1",
			resource_type: "endpoint",
			resource_id: "GET /x",
			path: "src/a.ts",
		});
		expect(endpoint.code).toBe("invalid_argument");
		// a given base_hash is kept as given
		const given = await t.file("implementer-1", "src/given.ts", "write", { base_hash: "abc123" });
		expect(given.claim.base_hash).toBe("abc123");
	});
});

describe("base hashes", () => {
	test("file: sha256 of its bytes; a missing file: ''", async () => {
		const t = await table();
		const bytes = new Uint8Array([0x68, 0x69, 0x0a, 0x00, 0xff, 0xfe]);
		write(t.p.root, "bin/blob.dat", bytes);
		const f = await t.file("implementer-1", "bin/blob.dat");
		expect(f.claim.base_hash).toBe(sha256(bytes));
		expect(f.resource.current_hash).toBe(sha256(bytes));
		const gone = await t.file("implementer-1", "not/there.ts");
		expect(gone.claim.base_hash).toBe("");
	});

	test("symbol: sha256 of its lines joined with a newline", async () => {
		const t = await table();
		t.write("src/shapes.ts", SHAPES);
		const s = await t.symbol("implementer-1", "src/shapes.ts", "Circle");
		const lines = SHAPES.split("\n").slice(4, 10);
		expect(lines[0]).toBe("export class Circle {");
		expect(s.claim.base_hash).toBe(sha256(lines.join("\n")));
		const given = await t.symbol("implementer-1", "src/shapes.ts", "head", "write", {
			start_line: 1,
			end_line: 2,
		});
		expect(given.claim.base_hash).toBe(sha256(SHAPES.split("\n").slice(0, 2).join("\n")));
	});

	test("directory: sha256 over its sorted visible files (repo-relative path, NUL, bytes, NUL)", async () => {
		const t = await table();
		t.write("lib/b.ts", "bee\n");
		t.write("lib/a.ts", "ay\n");
		t.write("lib/sub/c.ts", "sea\n");
		t.write("lib/ignored.log", "noise\n");
		t.write("lib/.gitignore", "*.log\n");
		t.write("other/x.ts", "elsewhere\n");
		const d = await t.dir("implementer-1", "lib");
		const expected = new Bun.CryptoHasher("sha256");
		for (const [rel, text] of [
			["lib/.gitignore", "*.log\n"],
			["lib/a.ts", "ay\n"],
			["lib/b.ts", "bee\n"],
			["lib/sub/c.ts", "sea\n"],
		] as const) {
			expected.update(`${rel}\0`).update(text).update("\0");
		}
		expect(d.claim.base_hash).toBe(expected.digest("hex"));
		expect(d.resource.language).toBeNull();
		// A change to an ignored file does not change it; a change to a visible one does.
		t.write("lib/ignored.log", "more noise\n");
		const same = await t.dir("implementer-2", "lib", "read");
		expect(same.claim.base_hash).toBe(d.claim.base_hash);
		t.write("lib/sub/c.ts", "changed\n");
		const changed = await t.dir("tester-1", "lib", "review");
		expect(changed.claim.base_hash).not.toBe(d.claim.base_hash);
		const missing = await t.dir("tester-1", "nowhere");
		expect(missing.claim.base_hash).toBe("");
	});
});

describe("reconcile", () => {
	test("suspends only write/exclusive claims on changed resources, with events; a second pass suspends nothing", async () => {
		const t = await table();
		t.write("src/a.ts", "a1\n");
		t.write("src/b.ts", "b1\n");
		t.write("src/same.ts", "same\n");
		const write = await t.file("implementer-1", "src/a.ts", "write");
		const read = await t.file("implementer-2", "src/a.ts", "read");
		const review = await t.file("reviewer-1", "src/a.ts", "review");
		const exclusive = await t.file("tester-1", "src/b.ts", "exclusive");
		const unchanged = await t.file("implementer-2", "src/same.ts", "write");
		const empty = await t.file("implementer-2", "src/new.ts", "write");
		expect(empty.claim.base_hash).toBe("");
		t.write("src/a.ts", "a2\n");
		t.write("src/b.ts", "b2\n");
		t.write("src/new.ts", "now it exists\n");

		const out = (await t.call("resource.claim_status", { reconcile: true })) as {
			claims: ClaimRecord[];
			suspended: string[];
		};
		expect(new Set(out.suspended)).toEqual(new Set([write.claim.id, exclusive.claim.id]));
		const status = Object.fromEntries(out.claims.map((c) => [c.id, c.status]));
		expect(status).toEqual({
			[write.claim.id]: "suspended",
			[read.claim.id]: "active",
			[review.claim.id]: "active",
			[exclusive.claim.id]: "suspended",
			[unchanged.claim.id]: "active",
			[empty.claim.id]: "active",
		});
		const suspendedClaim = out.claims.find((c) => c.id === write.claim.id);
		expect(suspendedClaim?.status_reason).toContain(sha256("a2\n"));

		const events = await t.events("claim.suspended");
		expect(events).toHaveLength(2);
		const ofWrite = events.find((e) => e.payload.claim_id === write.claim.id);
		expect(ofWrite).toMatchObject({
			actor_id: "system",
			task_id: t.taskId,
			payload: {
				resource_id: "file:src/a.ts",
				agent_id: "implementer-1",
				base_hash: sha256("a1\n"),
				current_hash: sha256("a2\n"),
			},
		});
		const res = (await t.call("resource.get", { resource_id: "file:src/a.ts" })) as {
			resource: ResourceRecord;
			claims: ClaimRecord[];
		};
		expect(res.resource.current_hash).toBe(sha256("a2\n"));
		// suspended claims are still live: resource.get and the table show them
		expect(res.claims.map((c) => c.id).sort()).toEqual(
			[write.claim.id, read.claim.id, review.claim.id].sort(),
		);

		const again = (await t.call("resource.claim_status", { reconcile: true })) as { suspended: string[] };
		expect(again.suspended).toEqual([]);
		expect(await t.events("claim.suspended")).toHaveLength(2);
		const watch = (await t.p.call("table.watch", { after_event_id: 0 })) as { suspended_claims: number };
		expect(watch.suspended_claims).toBe(2);
	});

	test("reconcile honours the agent filter, and without reconcile claim_status changes nothing", async () => {
		const t = await table();
		t.write("x.ts", "1");
		t.write("y.ts", "1");
		const x = await t.file("implementer-1", "x.ts");
		const y = await t.file("implementer-2", "y.ts");
		t.write("x.ts", "2");
		t.write("y.ts", "2");
		const plain = (await t.call("resource.claim_status", {})) as {
			suspended: string[];
			claims: ClaimRecord[];
		};
		expect(plain.suspended).toEqual([]);
		expect(plain.claims.map((c) => c.status)).toEqual(["active", "active"]);
		const one = (await t.call("resource.claim_status", { reconcile: true, agent_id: "implementer-2" })) as {
			suspended: string[];
		};
		expect(one.suspended).toEqual([y.claim.id]);
		const rest = (await t.call("resource.claim_status", { reconcile: true })) as { suspended: string[] };
		expect(rest.suspended).toEqual([x.claim.id]);
	});

	test("a deleted file never suspends; a changed file inside a claimed directory suspends the directory claim", async () => {
		const t = await table();
		t.write("gone.ts", "here\n");
		t.write("pkg/inner.ts", "v1\n");
		const gone = await t.file("implementer-1", "gone.ts");
		const dir = await t.dir("implementer-2", "pkg", "exclusive");
		rmSync(join(t.p.root, "gone.ts"));
		t.write("pkg/inner.ts", "v2\n");
		const out = (await t.call("resource.claim_status", { reconcile: true })) as {
			claims: ClaimRecord[];
			suspended: string[];
		};
		expect(out.suspended).toEqual([dir.claim.id]);
		expect(out.claims.find((c) => c.id === gone.claim.id)?.status).toBe("active");
	});

	test("a changed symbol suspends its claim; a change elsewhere in the file does not", async () => {
		const t = await table();
		t.write("src/shapes.ts", SHAPES);
		const circle = await t.symbol("implementer-1", "src/shapes.ts", "Circle");
		const area = await t.symbol("implementer-2", "src/shapes.ts", "area");
		t.write("src/shapes.ts", SHAPES.replace("return w * h;", "return h * w;"));
		const out = (await t.call("resource.claim_status", { reconcile: true })) as { suspended: string[] };
		expect(out.suspended).toEqual([area.claim.id]);
		expect(out.suspended).not.toContain(circle.claim.id);
	});
});

describe("resource.claim_status: filters and paging", () => {
	test("filters by resource, agent, status and task; limit 2 pages visit each claim exactly once", async () => {
		const t = await table();
		const other = (await t.p.call("task.create", { title: "Other", body_md: "x" })) as {
			task: { id: string };
		};
		const made: ClaimRecord[] = [];
		made.push((await t.file("implementer-1", "p/1.ts")).claim);
		made.push((await t.file("implementer-1", "p/2.ts")).claim);
		made.push((await t.file("implementer-2", "p/3.ts")).claim);
		made.push((await t.file("implementer-2", "p/1.ts", "read")).claim);
		made.push((await t.file("tester-1", "p/4.ts", "write", { task_id: other.task.id })).claim);
		made.push((await t.file("reviewer-1", "p/1.ts", "review")).claim);
		made.push((await t.file("reviewer-1", "p/5.ts", "write", { task_id: other.task.id })).claim);
		await t.call("resource.release", { claim_id: made[1]?.id, agent_id: "implementer-1" });
		await revokeClaim(t.p.rt, made[2]?.id as string, "no");

		const ids = async (args: Record<string, unknown>) =>
			((await t.call("resource.claim_status", args)) as { claims: ClaimRecord[] }).claims.map((c) => c.id);
		const at = (...i: number[]) => i.map((n) => made[n]?.id as string);
		expect(await ids({})).toEqual(at(0, 1, 2, 3, 4, 5, 6));
		expect(await ids({ resource_id: "file:p/1.ts" })).toEqual(at(0, 3, 5));
		expect(await ids({ agent_id: "implementer-2" })).toEqual(at(2, 3));
		expect(await ids({ task_id: other.task.id })).toEqual(at(4, 6));
		expect(await ids({ status: "released" })).toEqual(at(1));
		expect(await ids({ status: "revoked" })).toEqual(at(2));
		expect(await ids({ status: "active" })).toEqual(at(0, 3, 4, 5, 6));
		expect(await ids({ status: "active", agent_id: "reviewer-1", task_id: other.task.id })).toEqual(at(6));
		expect(await ids({ agent_id: "nobody" })).toEqual([]);

		const pages: string[][] = [];
		let cursor: string | null = null;
		do {
			const out = (await t.call("resource.claim_status", {
				limit: 2,
				...(cursor !== null && { cursor }),
			})) as { claims: ClaimRecord[]; next_cursor: string | null };
			pages.push(out.claims.map((c) => c.id));
			cursor = out.next_cursor;
		} while (cursor !== null && pages.length < 20);
		expect(pages.map((pg) => pg.length)).toEqual([2, 2, 2, 1]);
		expect(pages.flat()).toEqual(at(0, 1, 2, 3, 4, 5, 6));

		// paging with a filter
		const first = (await t.call("resource.claim_status", { status: "active", limit: 2 })) as {
			claims: ClaimRecord[];
			next_cursor: string;
		};
		const second = (await t.call("resource.claim_status", {
			status: "active",
			limit: 2,
			cursor: first.next_cursor,
		})) as { claims: ClaimRecord[]; next_cursor: string };
		const third = (await t.call("resource.claim_status", {
			status: "active",
			limit: 2,
			cursor: second.next_cursor,
		})) as { claims: ClaimRecord[]; next_cursor: string | null };
		expect([...first.claims, ...second.claims, ...third.claims].map((c) => c.id)).toEqual(at(0, 3, 4, 5, 6));
		expect(third.next_cursor).toBeNull();

		// an exact fit ends with next_cursor null on a full page or an empty one, never a duplicate
		const seven = (await t.call("resource.claim_status", { limit: 7 })) as { next_cursor: string | null };
		expect(seven.next_cursor).toBeNull();

		const bad = await t.p.fail("resource.claim_status", { cursor: "not-a-cursor" });
		expect(bad.code).toBe("invalid_argument");
		const badStatus = await t.p.fail("resource.claim_status", { status: "gone" });
		expect(badStatus.code).toBe("invalid_argument");
		const badLimit = await t.p.fail("resource.claim_status", { limit: 0 });
		expect(badLimit.code).toBe("invalid_argument");
	});
});

describe("resource.search and resource.get", () => {
	test("search matches path and symbol case-insensitively; % and _ are literal; type filter; paging", async () => {
		const t = await table();
		await t.file("implementer-1", "src/Alpha_Beta.ts");
		await t.file("implementer-1", "src/alphaXbeta.ts");
		await t.file("implementer-1", "docs/100%.md");
		await t.file("implementer-1", "docs/1000.md");
		await t.symbol("implementer-1", "lib/util.ts", "MixedCase", "write", { start_line: 1, end_line: 3 });
		await t.dir("implementer-1", "docs");
		await t.claim({ agent_id: "implementer-1", resource_type: "endpoint", resource_id: "GET /alpha" });

		const search = async (args: Record<string, unknown>) =>
			((await t.call("resource.search", args)) as { resources: ResourceRecord[] }).resources.map((r) => r.id);
		expect(await search({ query: "ALPHA_beta" })).toEqual(["file:src/Alpha_Beta.ts"]);
		expect(await search({ query: "alpha" })).toEqual([
			"GET /alpha",
			"file:src/Alpha_Beta.ts",
			"file:src/alphaXbeta.ts",
		]);
		expect(await search({ query: "100%" })).toEqual(["file:docs/100%.md"]);
		expect(await search({ query: "_" })).toEqual(["file:src/Alpha_Beta.ts"]);
		expect(await search({ query: "%" })).toEqual(["file:docs/100%.md"]);
		expect(await search({ query: "mixedcase" })).toEqual(["symbol:lib/util.ts#MixedCase"]);
		expect(await search({ query: "alpha", resource_type: "file" })).toEqual([
			"file:src/Alpha_Beta.ts",
			"file:src/alphaXbeta.ts",
		]);
		expect(await search({ query: "docs", resource_type: "directory" })).toEqual(["directory:docs"]);
		expect(await search({ query: "nothing-like-this" })).toEqual([]);

		const all = await search({ query: ":" });
		expect(all).toHaveLength(6);
		const pages: string[][] = [];
		let cursor: string | null = null;
		do {
			const out = (await t.call("resource.search", {
				query: ":",
				limit: 2,
				...(cursor !== null && { cursor }),
			})) as { resources: ResourceRecord[]; next_cursor: string | null };
			pages.push(out.resources.map((r) => r.id));
			cursor = out.next_cursor;
		} while (cursor !== null && pages.length < 20);
		expect(pages.map((p) => p.length)).toEqual([2, 2, 2]);
		expect(pages.flat()).toEqual(all);
		expect(new Set(pages.flat()).size).toBe(6);
		const blank = await t.p.fail("resource.search", { query: "  " });
		expect(blank.code).toBe("invalid_argument");
	});

	test("resource.get returns the resource and its live claims; unknown is not_found", async () => {
		const t = await table();
		t.write("src/a.ts", "content\n");
		const w = await t.file("implementer-1", "src/a.ts");
		const r = await t.file("implementer-2", "src/a.ts", "read");
		const gone = await t.file("reviewer-1", "src/a.ts", "review");
		await t.call("resource.release", { claim_id: gone.claim.id, agent_id: "reviewer-1" });
		const out = (await t.call("resource.get", { resource_id: "file:src/a.ts" })) as {
			resource: ResourceRecord;
			claims: ClaimRecord[];
		};
		expect(out.resource).toMatchObject({
			id: "file:src/a.ts",
			type: "file",
			path: "src/a.ts",
			symbol: null,
			language: "typescript",
			current_hash: sha256("content\n"),
		});
		expect(out.resource.created_at).toMatch(RFC3339_MS_UTC);
		expect(out.claims.map((c) => c.id).sort()).toEqual([w.claim.id, r.claim.id].sort());
		const err = await t.p.fail("resource.get", { resource_id: "file:src/zzz.ts" });
		expect(err.code).toBe("not_found");
	});
});
