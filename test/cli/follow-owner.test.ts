// `watch --follow` beside a live owner follows through the owner's socket (where a commit from any
// process wakes it at once), goes on by itself when the owner stops, and ends on Ctrl-C with 0.
import { expect, test } from "bun:test";
import { followWatch, runCli, tempDir } from "../_helpers/helpers.ts";
import { ownedProject } from "../_helpers/launch-helpers.ts";

test("watch --follow beside an owner: events from another process, then after the owner stops, none missed", async () => {
	const owned = await ownedProject(tempDir("rt-follow-"), { "a.txt": "a\n" });
	const root = owned.root;
	const watcher = followWatch(root);
	const follower = watcher.proc;
	const { readUntil } = watcher;
	const create = async (title: string) => {
		const r = await runCli([
			"mcp",
			"call",
			"--direct",
			"--root",
			root,
			"--tool",
			"task.create",
			"--args",
			JSON.stringify({ title, body_md: "b" }),
		]);
		expect(r.code, r.stderr).toBe(0);
	};
	try {
		await readUntil(1);
		await create("while the owner runs");
		await readUntil(2);
		owned.owner.kill("SIGTERM");
		expect(await owned.owner.exited).toBe(0);
		await create("after it stopped");
		await readUntil(3);
		follower.kill("SIGINT");
		expect(await follower.exited).toBe(0);
	} finally {
		if (follower.exitCode === null) follower.kill("SIGKILL");
		if (owned.owner.exitCode === null) owned.owner.kill("SIGKILL");
	}
	const titles = watcher
		.text()
		.trim()
		.split("\n")
		.slice(1)
		.map((l) => JSON.parse(l).payload.title);
	expect(titles).toEqual(["while the owner runs", "after it stopped"]);
}, 60_000);
