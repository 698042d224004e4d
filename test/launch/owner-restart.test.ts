// The owner killed under a live headless session (SIGKILL: no chance to stop it). Without a sandbox
// its agent outlives the owner, which is the hard case: the next owner records the attempt as
// interrupted, kills what is left of it, and only then starts it once more, resuming its
// conversation, with a new capability; the agent never runs twice at once. Killed under it again,
// the next owner gives up on it.
import { afterAll, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir, until } from "../_helpers/helpers.ts";
import { type Owned, ownedProject, startOwner } from "../_helpers/launch-helpers.ts";
import { brief, closed, lifeOf, startSession } from "../_helpers/session-life.ts";

let owned: Owned | undefined;
afterAll(async () => {
	owned?.owner.kill("SIGTERM");
	await owned?.owner.exited;
});

/** Whether `pid` still runs: there, and not a zombie waiting for whoever inherited it to reap it. */
const alive = (pid: number) => {
	try {
		return !/\) Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
	} catch {
		return false;
	}
};

test("an owner killed under a session: interrupted, what is left killed, started once more; killed again, given up", async () => {
	const scripts = tempDir("rt-restart-cli-");
	const starts = join(scripts, "starts.log");
	const overlap = join(scripts, "overlap.log");
	const file = join(scripts, "codex.sh");
	// Records its pid, and any of its earlier selves still alive; names its conversation; works until stopped.
	writeFileSync(
		file,
		[
			// Running, not a zombie its new parent has yet to reap.
			`for p in $(cat ${starts} 2>/dev/null); do grep -qv ') Z ' /proc/$p/stat 2>/dev/null && echo "$p" >> ${overlap}; done`,
			`echo $$ >> ${starts}`,
			'if [ "$1" = resume ]; then echo "resumed $2"; else echo \'{"type":"thread.started","thread_id":"conv-9"}\'; fi',
			"trap 'exit 0' TERM",
			"while :; do sleep 0.1; done",
			"",
		].join("\n"),
	);
	owned = await ownedProject(tempDir("rt-restart-"), { "a.txt": "a\n" }, (doc) => {
		doc.setIn(["sessions", "sandbox"], "off");
		doc.setIn(["adapters", "codex", "headless"], `/bin/sh ${file}`);
		doc.setIn(["adapters", "codex", "headless_resume"], `/bin/sh ${file} resume {{external_session_id}}`);
	});
	const root = owned.root;
	const id = await startSession(root, "--agent", "reviewer-1", "--adapter", "codex");
	const pids = () => (existsSync(starts) ? readFileSync(starts, "utf8").trim().split("\n").map(Number) : []);
	await until(() => pids().length === 1, 15_000, "the first attempt");
	await until(
		async () => (await runCli(["sessions", "list", "--root", root, "--json"])).stdout.includes('"conv-9"'),
		15_000,
		"its conversation",
	);
	const [first] = pids() as [number];

	const kill = async () => {
		owned?.owner.kill("SIGKILL");
		await owned?.owner.exited;
	};
	await kill();
	// Without a sandbox the agent outlived its owner.
	expect(alive(first)).toBe(true);
	owned = await startOwner(root);
	await until(() => pids().length === 2, 20_000, "the second attempt");
	await until(() => !alive(first), 10_000, "what was left of the first attempt to be gone");
	expect(existsSync(overlap)).toBe(false);
	expect(brief(await lifeOf(root, id))).toEqual([
		"started 1",
		"exited 1 -1 interrupted",
		"retrying 2",
		"started 2",
	]);
	await until(
		() => readFileSync(join(root, ".roundtable/transcripts", `${id}.log`), "utf8").includes("resumed conv-9"),
		15_000,
		"it to resume its conversation",
	);

	const second = pids()[1] as number;
	await kill();
	owned = await startOwner(root);
	const events = await closed(root, id);
	expect(brief(events)).toEqual([
		"started 1",
		"exited 1 -1 interrupted",
		"retrying 2",
		"started 2",
		"exited 2 -1 interrupted",
		"gave_up",
		"closed",
	]);
	expect(events[5]?.payload.why).toBe("an owner stopped under it twice");
	await until(() => !alive(second), 10_000, "what was left of the second attempt to be gone");
	expect(pids()).toHaveLength(2);
	expect(existsSync(overlap)).toBe(false);
}, 120_000);

test("a session whose capability lapsed while no owner ran is given up at the restart, never started again", async () => {
	owned?.owner.kill("SIGTERM");
	await owned?.owner.exited;
	const scripts = tempDir("rt-lapse-cli-");
	const starts = join(scripts, "starts.log");
	const file = join(scripts, "agent.sh");
	writeFileSync(file, `echo $$ >> ${starts}\ntrap 'exit 0' TERM\nwhile :; do sleep 0.1; done\n`);
	owned = await ownedProject(tempDir("rt-lapse-"), { "a.txt": "a\n" }, (doc) => {
		doc.setIn(["sessions", "sandbox"], "off");
		doc.setIn(["sessions", "capability_ttl_seconds"], 5);
		doc.setIn(["adapters", "slow"], { command: `/bin/sh ${file}`, headless: `/bin/sh ${file}` });
	});
	const root = owned.root;
	const id = await startSession(root, "--agent", "reviewer-1", "--adapter", "slow");
	await until(() => existsSync(starts), 15_000, "its start");
	// The owner records the agent's pid as it spawns it; on a loaded machine the agent's first line
	// can come first, and an owner killed in between leaves nothing to find (what this test is not about).
	await until(
		() => existsSync(join(root, ".roundtable/sessions", id, "agent.pid")),
		15_000,
		"its pid recorded",
	);
	owned.owner.kill("SIGKILL");
	await owned.owner.exited;
	const [pid] = readFileSync(starts, "utf8").trim().split("\n").map(Number) as [number];
	await Bun.sleep(5500);
	owned = await startOwner(root);
	const events = await closed(root, id);
	expect(brief(events)).toEqual(["started 1", "exited 1 -1 interrupted", "gave_up", "closed"]);
	expect(events[2]?.payload.why).toMatch(/^the capability of session \S+ expired at \S+ while no owner ran$/);
	expect(readFileSync(starts, "utf8").trim().split("\n")).toHaveLength(1);
	await until(() => !alive(pid), 10_000, "what was left of its agent to be gone");
	expect(existsSync(join(root, ".roundtable/sessions", id))).toBe(false);
}, 60_000);
