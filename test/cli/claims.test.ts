// `roundtable claims list|claim|release|revoke|expire|reconcile` through the real CLI in a
// subprocess, on a project initialized by `roundtable init`.
import { beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ClaimRecord } from "../../src/vocabulary/records.ts";
import { cliHere as runCli } from "../_helpers/cli.ts";
import { tempDir, UUID7 } from "../_helpers/helpers.ts";

const CLAIM_ID = `C-${UUID7}`;

let root: string;
let taskId: string;

const cli = (...args: string[]) => runCli([...args, "--root", root]);

/** `claims claim … --json`: the claim it made. */
async function claim(args: string[]): Promise<ClaimRecord> {
	const r = await cli("claims", "claim", ...args, "--task", taskId, "--json");
	expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
	return (JSON.parse(r.stdout) as { claim: ClaimRecord }).claim;
}

const fileClaim = (agent: string, path: string, mode = "write", ...extra: string[]) =>
	claim([
		"--agent",
		agent,
		"--resource-type",
		"file",
		"--resource-id",
		`file:${path}`,
		"--claim-type",
		mode,
		...extra,
	]);

async function listJson(...filters: string[]): Promise<ClaimRecord[]> {
	const r = await cli("claims", "list", ...filters, "--json");
	expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: "" });
	return (JSON.parse(r.stdout) as { claims: ClaimRecord[] }).claims;
}

const line = (c: ClaimRecord, status = c.status) =>
	`${c.id} ${c.agent_id} ${c.claim_type} ${status} ${c.resource_id}`;

beforeAll(async () => {
	root = tempDir("rt-claims-cli-");
	const init = await runCli(["init", "--root", root]);
	expect(init.code).toBe(0);
	const task = await runCli([
		"mcp",
		"call",
		"--tool",
		"task.create",
		"--args",
		JSON.stringify({ title: "CLI claims", body_md: "Claim from the command line." }),
		"--root",
		root,
	]);
	expect(task.code).toBe(0);
	taskId = (JSON.parse(task.stdout) as { task: { id: string } }).task.id;
});

describe("roundtable claims", () => {
	test("--help (and the bare group) lists the subcommands", async () => {
		const r = await runCli(["claims", "--help"]);
		expect(r.code).toBe(0);
		for (const sub of ["list", "claim", "release", "revoke", "expire", "reconcile"]) {
			expect(r.stdout).toMatch(new RegExp(`claims ${sub}\\b`));
		}
		const bare = await runCli(["claims"]);
		expect(bare.code).toBe(2);
		expect(bare.stderr).toContain("claims reconcile");
		const sub = await runCli(["claims", "release", "--help"]);
		expect(sub.code).toBe(0);
		expect(sub.stdout).toContain("--force");
		expect(sub.stdout).toContain("--reason");
		const typo = await runCli(["claims", "relase"]);
		expect(typo.code).toBe(2);
		expect(typo.stderr).toContain("claims release");
	});

	test("claim prints its line; --json prints the claim and resource; list prints one line per claim", async () => {
		const r = await cli(
			"claims",
			"claim",
			"--agent",
			"implementer-1",
			"--task",
			taskId,
			"--resource-type",
			"file",
			"--resource-id",
			"file:cli/list.ts",
			"--ttl",
			"600",
			"--rationale",
			"listing",
		);
		expect(r.code).toBe(0);
		expect(r.stderr).toBe("");
		expect(r.stdout).toMatch(new RegExp(`^${CLAIM_ID} implementer-1 write active file:cli/list\\.ts\\n$`));
		const id = r.stdout.split(" ")[0] as string;

		const read = await fileClaim("reviewer-1", "cli/list.ts", "review");
		expect(read).toMatchObject({
			agent_id: "reviewer-1",
			claim_type: "review",
			status: "active",
			task_id: taskId,
		});

		const list = await cli("claims", "list", "--resource", "file:cli/list.ts");
		expect(list.code).toBe(0);
		expect(list.stdout).toBe(`${id} implementer-1 write active file:cli/list.ts\n${line(read)}\n`);

		const json = await listJson("--resource", "file:cli/list.ts");
		expect(json.map((c) => c.id)).toEqual([id, read.id]);
		expect(json[0]).toMatchObject({ rationale: "listing", path: "cli/list.ts" });
		expect(Date.parse(json[0]?.expires_at as string) - Date.parse(json[0]?.created_at as string)).toBe(
			600_000,
		);

		const byAgent = await listJson("--agent", "reviewer-1", "--status", "active");
		expect(byAgent.map((c) => c.id)).toContain(read.id);
		expect(byAgent.every((c) => c.agent_id === "reviewer-1")).toBe(true);
		const none = await cli("claims", "list", "--agent", "nobody");
		expect({ code: none.code, stdout: none.stdout }).toEqual({ code: 0, stdout: "" });
	});

	test("a symbol claim takes its lines from the file", async () => {
		writeFileSync(join(root, "shape.ts"), "export function area(): number {\n\treturn 1;\n}\n");
		const c = await claim([
			"--agent",
			"implementer-2",
			"--resource-type",
			"symbol",
			"--resource-id",
			"symbol:shape.ts#area",
			"--claim-type",
			"read",
		]);
		expect(c).toMatchObject({ symbol: "area", start_line: 1, end_line: 3, path: "shape.ts" });
	});

	test("a conflicting claim exits 1 and names the holder on stderr", async () => {
		const held = await fileClaim("implementer-1", "cli/conflict.ts", "exclusive");
		const r = await cli(
			"claims",
			"claim",
			"--agent",
			"implementer-2",
			"--task",
			taskId,
			"--resource-type",
			"file",
			"--resource-id",
			"file:cli/conflict.ts",
			"--claim-type",
			"read",
		);
		expect(r.code).toBe(1);
		expect(r.stdout).toBe("");
		expect(r.stderr).toContain("conflict");
		expect(r.stderr).toContain(held.id);
		expect(r.stderr).toContain("implementer-1");
	});

	test("bad claim arguments: missing --agent exits 2; an invalid value exits 1 with the reason", async () => {
		const missing = await cli(
			"claims",
			"claim",
			"--task",
			taskId,
			"--resource-type",
			"file",
			"--resource-id",
			"file:x.ts",
		);
		expect(missing.code).toBe(2);
		expect(missing.stderr).toContain("--agent");
		const bad = await cli(
			"claims",
			"claim",
			"--agent",
			"implementer-1",
			"--task",
			taskId,
			"--resource-type",
			"file",
			"--resource-id",
			"file:./x.ts",
		);
		expect(bad.code).toBe(1);
		expect(bad.stderr).toContain("file:x.ts");
	});

	test("release: the holder releases; someone else cannot; --force --reason releases any claim", async () => {
		const a = await fileClaim("implementer-1", "cli/release-a.ts");
		const b = await fileClaim("implementer-2", "cli/release-b.ts");

		const other = await cli("claims", "release", "--claim", a.id, "--agent", "implementer-2");
		expect(other.code).toBe(1);
		expect(other.stderr).toContain("implementer-1");

		const holder = await cli("claims", "release", "--claim", a.id, "--agent", "implementer-1");
		expect(holder.code).toBe(0);
		expect(holder.stdout).toBe(`${line(a, "released")}\n`);

		const noReason = await cli("claims", "release", "--claim", b.id, "--force");
		expect(noReason.code).toBe(1);
		expect(noReason.stderr).toContain("reason");

		const forced = await cli(
			"claims",
			"release",
			"--claim",
			b.id,
			"--force",
			"--reason",
			"operator cleanup",
			"--json",
		);
		expect(forced.code).toBe(0);
		expect((JSON.parse(forced.stdout) as { claim: ClaimRecord }).claim).toMatchObject({
			id: b.id,
			status: "released",
			status_reason: "operator cleanup",
		});

		const events = await runCli([
			"mcp",
			"call",
			"--tool",
			"table.watch",
			"--args",
			'{"limit":200}',
			"--root",
			root,
		]);
		const released = (
			JSON.parse(events.stdout) as { events: { type: string; payload: Record<string, unknown> }[] }
		).events
			.filter((e) => e.type === "claim.released")
			.map((e) => e.payload);
		expect(released).toContainEqual(expect.objectContaining({ claim_id: a.id, forced: false }));
		expect(released).toContainEqual(
			expect.objectContaining({ claim_id: b.id, forced: true, reason: "operator cleanup" }),
		);
	});

	test("revoke needs --reason (exit 2 without); with it the claim is revoked; twice exits 1", async () => {
		const c = await fileClaim("implementer-1", "cli/revoke.ts");
		const missing = await cli("claims", "revoke", "--claim", c.id);
		expect(missing.code).toBe(2);
		expect(missing.stderr).toContain("--reason");
		expect((await listJson("--resource", "file:cli/revoke.ts"))[0]?.status).toBe("active");

		const r = await cli("claims", "revoke", "--claim", c.id, "--reason", "task cancelled");
		expect(r.code).toBe(0);
		expect(r.stdout).toBe(`${line(c, "revoked")}\n`);
		const after = await listJson("--resource", "file:cli/revoke.ts");
		expect(after[0]).toMatchObject({ status: "revoked", status_reason: "task cancelled" });

		const twice = await cli("claims", "revoke", "--claim", c.id, "--reason", "again");
		expect(twice.code).toBe(1);
		const unknown = await cli("claims", "revoke", "--claim", "C-unknown", "--reason", "x");
		expect(unknown.code).toBe(1);
	});

	test("expire: --at in the future expires the claims due by then; a bad --at exits 2", async () => {
		const c = await fileClaim("tester-1", "cli/expire.ts", "write", "--ttl", "60");
		const bad = await cli("claims", "expire", "--at", "next tuesday");
		expect(bad.code).toBe(2);
		expect(bad.stderr).toContain("--at");
		expect((await listJson("--resource", "file:cli/expire.ts"))[0]?.status).toBe("active");

		const now = await cli("claims", "expire");
		expect(now.code).toBe(0);
		expect(now.stdout).not.toContain(c.id);

		const at = new Date(Date.now() + 120_000).toISOString();
		const r = await cli("claims", "expire", "--at", at);
		expect(r.code).toBe(0);
		expect(r.stdout.split("\n")).toContain(line(c, "expired"));
		expect((await listJson("--resource", "file:cli/expire.ts"))[0]).toMatchObject({
			status: "expired",
			status_reason: "ttl elapsed",
		});
		const again = await cli("claims", "expire", "--at", at);
		expect(again.code).toBe(0);
		expect(again.stdout).not.toContain(c.id);
	});

	test("reconcile prints the claims it suspended, and nothing the second time", async () => {
		writeFileSync(join(root, "recon.ts"), "one\n");
		writeFileSync(join(root, "recon-read.ts"), "one\n");
		const w = await fileClaim("implementer-2", "recon.ts", "write");
		const r = await fileClaim("implementer-2", "recon-read.ts", "read");
		writeFileSync(join(root, "recon.ts"), "two\n");
		writeFileSync(join(root, "recon-read.ts"), "two\n");

		const first = await cli("claims", "reconcile");
		expect(first.code).toBe(0);
		expect(first.stdout).toBe(`${line(w, "suspended")}\n`);
		expect((await listJson("--resource", "file:recon-read.ts"))[0]?.id).toBe(r.id);
		expect((await listJson("--status", "suspended")).map((c) => c.id)).toEqual([w.id]);

		const second = await cli("claims", "reconcile", "--json");
		expect(second.code).toBe(0);
		expect(JSON.parse(second.stdout)).toEqual({ suspended: [] });
	});
});
