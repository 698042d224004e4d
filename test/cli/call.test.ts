// `mcp call` beside a live owner is a relay: it loads the CLI's own few modules, the layout to find
// the owner and the socket client, and nothing that opens the project (no schemas, no store, no
// package); validation happens in the owner. A stand-in owner on the socket shows what was sent.
import { expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { VERSION } from "../../src/version.ts";
import { MAIN, REPO, runProcess, tempDir } from "../_helpers/helpers.ts";
import { partOf } from "../_helpers/import-graph.ts";

const PRELOAD = join(REPO, "test", "fixtures-scripts", "loaded-modules.ts");
/** The parts of src/ a relay may load (src/main.ts is `main`). */
const RELAY_PARTS = ["main", "cli", "domain", "version", "layout", "fsutil", "os", "owner", "transports"];

test("beside a live owner, mcp call relays the call and loads only what relaying needs", async () => {
	const root = tempDir();
	mkdirSync(join(root, ".roundtable"));
	const socket = join(root, ".roundtable", "owner.sock");
	const received: string[] = [];
	const result = { tasks: [], next_cursor: null };
	const owner = Bun.listen({
		unix: socket,
		socket: {
			data(s, chunk) {
				received.push(chunk.toString());
				s.end(`${JSON.stringify({ ok: true, result })}\n`);
			},
		},
	});
	writeFileSync(
		join(root, ".roundtable", "owner.json"),
		JSON.stringify({
			pid: process.pid,
			http_url: null,
			socket_path: socket,
			chair_interval_ms: null,
			started_at: new Date().toISOString(),
			version: VERSION,
		}),
	);
	const loaded = join(root, "loaded.txt");
	try {
		const r = await runProcess(
			[
				process.execPath,
				"--preload",
				PRELOAD,
				MAIN,
				"mcp",
				"call",
				"--tool",
				"task.list",
				"--args",
				'{"limit":5}',
				"--root",
				root,
			],
			{ env: { ...process.env, RT_LOADED_MODULES: loaded } },
		);
		expect(r).toEqual({ code: 0, stdout: `${JSON.stringify(result, null, 2)}\n`, stderr: "" });
	} finally {
		owner.stop(true);
	}
	expect(JSON.parse(received.join(""))).toEqual({ tool: "task.list", args: { limit: 5 } });

	const modules = readFileSync(loaded, "utf8")
		.split("\n")
		.filter((path) => path !== PRELOAD)
		.map((path) => relative(join(REPO, "src"), path));
	expect(modules).toContain("cli/call.ts");
	// A package shows as its name (arktype, not its hundred files).
	const beyond = modules
		.filter((m) => m.startsWith("..") || !RELAY_PARTS.includes(partOf(m)))
		.map((m) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(m)?.[1] ?? m);
	expect([...new Set(beyond)]).toEqual([]);
});

test("mcp call in a directory that does not exist is a failed precondition naming it, not an internal error", async () => {
	const missing = join(tempDir(), "not-here");
	const r = await runProcess([
		process.execPath,
		MAIN,
		"mcp",
		"call",
		"--tool",
		"task.list",
		"--root",
		missing,
	]);
	expect(r.code).toBe(1);
	expect(JSON.parse(r.stderr)).toEqual({
		error: { code: "failed_precondition", message: `there is no directory ${missing} to call task.list in` },
	});
});
