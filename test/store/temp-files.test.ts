// A write call's savepoint keeps its undo pages in memory (temp_store=MEMORY, src/store/db.ts): by
// default SQLite moves them to a temporary file once they pass 64 KiB, and the Chair's assignment of
// a thousand tasks spent half its time writing that file. Real SQLite; the file is looked for among
// this process's open files, where SQLite keeps it (already deleted) until the savepoint ends.
import { expect, test } from "bun:test";
import { readdirSync, readlinkSync } from "node:fs";
import { makeProject } from "../_helpers/helpers.ts";

/** Deleted files this process holds open: where a temporary file of SQLite's shows. */
const deletedOpenFiles = () =>
	readdirSync("/proc/self/fd").flatMap((fd) => {
		try {
			const target = readlinkSync(`/proc/self/fd/${fd}`);
			return target.endsWith(" (deleted)") ? [target] : [];
		} catch {
			return []; // closed meanwhile
		}
	});

test("a write call that changes ~400 KiB of existing pages opens no temporary file for its undo", async () => {
	const p = await makeProject();
	const now = new Date().toISOString();
	const body = "a body long enough to fill pages quickly ".repeat(15);
	const ids = Array.from({ length: 600 }, (_, i) => `T-temp-${String(i).padStart(4, "0")}`);
	await p.rt.store.withTransaction("write", async (tx) => {
		for (const id of ids) {
			const task = { id, run_id: null, title: id, body_md: body, status: "open" as const, priority: 100 };
			await tx.tasks.insert({ ...task, risk: "normal", assigned_agent_id: null, readable_paths: [] }, now);
		}
	});
	// Every task changes in one later call: each of their pages is journaled in its savepoint.
	const before = new Set(deletedOpenFiles());
	const during = await p.rt.store.withTransaction("write", async (tx) => {
		for (const id of ids) await tx.tasks.update(id, { status: "blocked" }, now);
		return deletedOpenFiles().filter((f) => !before.has(f));
	});
	expect(during).toEqual([]);
	const blocked = await p.rt.store.withTransaction("read", (tx) => tx.tasks.withStatus("blocked"));
	expect(blocked).toHaveLength(ids.length);
});
