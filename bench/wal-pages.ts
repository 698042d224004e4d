// How many WAL pages one task.create commits (issue 22's "fewer bytes per commit"): a fresh project,
// the WAL emptied, then task.create calls one by one; the WAL's size says how many frames they wrote.
import { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { databasePath } from "../src/runtime.ts";
import { freshProject } from "./lib.ts";

const CALLS = 50;

export async function walPagesPerCreate(): Promise<number> {
	const p = await freshProject();
	try {
		const path = databasePath(p.rt.root, p.rt.config);
		const side = new Database(path);
		side.run("PRAGMA wal_checkpoint(TRUNCATE)");
		const pageSize = side.query<{ page_size: number }, []>("PRAGMA page_size").get()?.page_size ?? 4096;
		for (let i = 0; i < CALLS; i++) await p.call("task.create", { title: `t${i}`, body_md: "a body" });
		const frames = (statSync(`${path}-wal`).size - 32) / (pageSize + 24);
		side.close();
		return frames / CALLS;
	} finally {
		p.done();
	}
}

if (import.meta.main) console.log(`WAL pages per task.create: ${(await walPagesPerCreate()).toFixed(2)}`);
