// A direct mutation's idempotency key is held in the database while its call runs (patch.apply,
// patch.rollback, test.run): a retry with the same key from this process or another is a conflict
// until the first finishes; a key whose holder died is taken over; a call that fails frees its key.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../_helpers/helpers.ts";
import { eventually, project, run } from "../_helpers/test-run-helpers.ts";

const SLOW = "echo run >> runs.txt\nwhile [ ! -e go ]; do sleep 0.05; done\necho done";

/** The child (another process) holding `args`'s key in a test.run that waits for the file `go`. */
function holder(root: string, args: object) {
	return Bun.spawn(
		[
			process.execPath,
			join(REPO, "test/fixtures-scripts/apply-once.ts"),
			root,
			"test.run",
			JSON.stringify(args),
		],
		{ cwd: REPO, stdin: "ignore", stdout: "pipe", stderr: "pipe" },
	);
}

describe("an idempotency key held while its call runs", () => {
	test("a retry in the same process while the first runs is a conflict; after it, the first result", async () => {
		// Unsandboxed: the runs it counts land in the project (in bwrap they land in a scratch copy).
		const p = await project({ allow: ["./slow.sh"], scripts: { "slow.sh": SLOW }, sandbox: "off" });
		const args = { command: "./slow.sh", idempotency_key: "k-here" };
		const first = run(p, args);
		expect(await eventually(() => existsSync(join(p.root, "runs.txt")), 15_000)).toBe(true);
		const err = await p.fail("test.run", args);
		expect([err.code, err.message]).toEqual([
			"conflict",
			"a test.run call with idempotency key 'k-here' is still running",
		]);
		writeFileSync(join(p.root, "go"), "");
		const done = await first;
		expect((await run(p, args)).test_run.id).toBe(done.test_run.id);
		expect(readFileSync(join(p.root, "runs.txt"), "utf8")).toBe("run\n");
	});

	test("a key whose holder was killed is taken over: the retry runs", async () => {
		// Unsandboxed: the runs it counts land in the project (in bwrap they land in a scratch copy).
		const p = await project({ allow: ["./slow.sh"], scripts: { "slow.sh": SLOW }, sandbox: "off" });
		const args = { command: "./slow.sh", idempotency_key: "k-dead" };
		const child = holder(p.root, args);
		expect(await eventually(() => existsSync(join(p.root, "runs.txt")), 15_000)).toBe(true);
		expect((await p.fail("test.run", args)).code).toBe("conflict"); // while it lives
		child.kill("SIGKILL");
		await child.exited;
		writeFileSync(join(p.root, "go"), "");
		const retry = await run(p, args);
		expect(retry.test_run.status).toBe("passed");
		expect(readFileSync(join(p.root, "runs.txt"), "utf8")).toBe("run\nrun\n");
	});

	test("a call that fails frees its key: a retry with it runs again, not a conflict", async () => {
		const p = await project({ allow: ["./t.sh"], scripts: {} });
		const args = { command: "./t.sh", idempotency_key: "k-fail", proposal_id: "P-missing" };
		expect((await p.fail("test.run", args)).code).toBe("not_found");
		// The same key with the same arguments is free again (nothing was held for it).
		expect((await p.fail("test.run", args)).code).toBe("not_found");
		const rollback = { transaction_id: "TX-missing", idempotency_key: "k-rb" };
		expect((await p.fail("patch.rollback", rollback)).code).toBe("not_found");
		expect((await p.fail("patch.rollback", rollback)).code).toBe("not_found");
	});
});
