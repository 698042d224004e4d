// A test run's stored log: .roundtable/testlogs/<id>.log (our id, never the caller's text), the
// summary and tail a finished run reports, and the pages test.get_result reads back from it.

import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { notFound } from "../errors.ts";
import { writeFileAtomic } from "../fsutil.ts";
import type { Env } from "../handlers/env.ts";
import { LAYOUT } from "../layout.ts";
import { charStartFrom, readLogPage } from "../os/log-page.ts";
import type { Args } from "../registry/index.ts";

export const TESTLOGS_DIR = LAYOUT.testlogs;
const logPath = (root: string, id: string) => join(root, TESTLOGS_DIR, `${id}.log`);
const SUMMARY_LINES = 10;
/** How much of a log a result carries: a finished run's tail, test.get_result's default page. */
export const RESULT_LOG_BYTES = 64 * 1024;

/** A finished run's whole output, stored as its log. */
export function writeLog(root: string, id: string, output: Uint8Array): void {
	mkdirSync(join(root, TESTLOGS_DIR), { recursive: true, mode: 0o700 });
	writeFileAtomic(logPath(root, id), output, 0o600);
}

export function summarize(output: Uint8Array): string {
	const lines = new TextDecoder()
		.decode(output)
		.split("\n")
		.filter((l) => l.trim() !== "");
	return lines.slice(-SUMMARY_LINES).join("\n").slice(-2000) || "No test output captured.";
}

/** The last `bytes` of a log, from a character boundary. */
export function tail(text: Uint8Array, bytes: number): string {
	const from = text.byteLength > bytes ? charStartFrom(text, text.byteLength - bytes) : 0;
	return new TextDecoder().decode(text.subarray(from));
}

/** test.get_result: the run's row and a page of its log. */
export async function getResult(a: Args<"test.get_result">, env: Env) {
	const test_run = await env.rt.store.withTransaction("read", (tx) => tx.testRuns.get(a.test_run_id));
	if (!test_run) throw notFound(`test run ${a.test_run_id} not found`, { test_run_id: a.test_run_id });
	// The log is read after the transaction: no file I/O inside one.
	const page = readLogPage(logPath(env.rt.root, test_run.id), a.offset, a.max_bytes ?? RESULT_LOG_BYTES);
	// A run that ended before its command ran (status error) has no log file: its reason is the log.
	const log = page.log_bytes === 0 && test_run.status === "error" ? test_run.summary_md : page.log;
	return { test_run, ...page, log };
}
