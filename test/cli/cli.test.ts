// The real CLI in a subprocess: exit codes, stdout for data, stderr for errors.
import { beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { followWatch, runCli, tempDir } from "../_helpers/helpers.ts";

let root: string;
beforeAll(async () => {
	root = tempDir();
	const r = await runCli(["init", "--root", root]);
	expect(r.code).toBe(0);
});

const call = (tool: string, args?: string, extra: string[] = []) =>
	runCli([
		"mcp",
		"call",
		"--tool",
		tool,
		...(args === undefined ? [] : ["--args", args]),
		"--root",
		root,
		...extra,
	]);

describe("global", () => {
	test("--version prints the version", async () => {
		const r = await runCli(["--version"]);
		expect(r).toEqual({ code: 0, stdout: "roundtable 0.1.0\n", stderr: "" });
	});

	test("--help lists every command", async () => {
		const r = await runCli(["--help"]);
		expect(r.code).toBe(0);
		for (const c of ["init", "mcp inspect", "mcp call", "table", "watch"])
			expect(r.stdout).toContain(`  ${c}`);
	});

	test.each([
		"init",
		"start",
		"mcp serve",
		"mcp stdio",
		"mcp inspect",
		"mcp call",
		"table",
		"watch",
		"symbols",
	])("%s --help", async (name: string) => {
		const cmd = name.split(" ");
		const r = await runCli([...cmd, "--help"]);
		expect(r.code).toBe(0);
		expect(r.stdout).toStartWith(`usage: roundtable ${cmd.join(" ")}`);
		expect(r.stdout).toContain("--root DIR");
	});

	test("an unknown command exits 2 with a suggestion", async () => {
		const r = await runCli(["tabel"]);
		expect(r.code).toBe(2);
		expect(r.stdout).toBe("");
		expect(r.stderr).toContain("unknown command 'tabel' (did you mean 'table'?)");
		const sub = await runCli(["mcp", "cal"]);
		expect(sub.code).toBe(2);
		expect(sub.stderr).toContain("(did you mean 'mcp call'?)");
	});

	test("a long unknown command or flag is echoed as a short prefix with its length", async () => {
		const long = "x".repeat(100_000);
		const command = await runCli([long]);
		expect(command.code).toBe(2);
		expect(command.stderr).toBe(
			`roundtable: unknown command '${"x".repeat(200)}…' (100000 characters); see roundtable --help\n`,
		);
		const flag = await runCli(["mcp", "inspect", `--${long}`]);
		expect(flag.code).toBe(2);
		expect(flag.stderr).toStartWith(
			`roundtable mcp inspect: unknown flag '--${"x".repeat(198)}…' (100002 characters)\n`,
		);
	});

	test("a mistyped subcommand of a group that is a command too gets a suggestion, not 'unexpected argument'", async () => {
		const typo = await runCli(["sessions", "regster"]);
		expect(typo.code).toBe(2);
		expect(typo.stderr).toBe(
			"roundtable: unknown command 'sessions regster' (did you mean 'sessions register'?); see roundtable --help\n",
		);
		const far = await runCli(["agents", "bogus"]);
		expect(far.code).toBe(2);
		expect(far.stderr).toContain("unknown command 'agents bogus'; agents takes list, enable, disable;");
		const group = await runCli(["claim", "list"]);
		expect(group.stderr).toContain("unknown command 'claim list' (did you mean 'claims list'?)");
		// A positional still reaches the command that takes one.
		const positional = await runCli(["agents", "enable", "implementer-1", "--root", root]);
		expect(positional.stderr).not.toContain("unknown command");
	});

	test("an unknown flag, a missing value and a stray word exit 2", async () => {
		const flag = await runCli(["init", "--forse", "--root", root]);
		expect(flag.code).toBe(2);
		expect(flag.stderr).toContain("unknown flag '--forse' (did you mean '--force'?)");
		const value = await runCli(["watch", "--limit"]);
		expect(value.code).toBe(2);
		expect(value.stderr).toContain("--limit needs a value");
		const word = await runCli(["table", "extra"]);
		expect(word.code).toBe(2);
		expect(word.stderr).toContain("unexpected argument 'extra'");
	});
});

describe("mcp call", () => {
	test("prints the result on stdout and exits 0", async () => {
		const r = await call("task.create", JSON.stringify({ title: "from the CLI", body_md: "b" }));
		expect(r.code).toBe(0);
		expect(r.stderr).toBe("");
		expect(JSON.parse(r.stdout).task.title).toBe("from the CLI");
	});

	test("a tool error goes to stderr as {error:{code,message,details}} with exit 1", async () => {
		const r = await call("task.get", JSON.stringify({ task_id: "T-missing" }));
		expect(r.code).toBe(1);
		expect(r.stdout).toBe("");
		expect(JSON.parse(r.stderr)).toEqual({
			error: { code: "not_found", message: "task T-missing not found", details: { task_id: "T-missing" } },
		});
	});

	test("an unknown tool is not_found with a suggestion", async () => {
		const r = await call("task.craete");
		expect(r.code).toBe(1);
		expect(JSON.parse(r.stderr).error).toMatchObject({
			code: "not_found",
			details: { did_you_mean: "task.create" },
		});
	});

	test("arguments come from --args-file or stdin", async () => {
		const file = join(tempDir(), "args.json");
		writeFileSync(file, JSON.stringify({ title: "from a file", body_md: "b" }));
		const fromFile = await runCli([
			"mcp",
			"call",
			"--tool",
			"task.create",
			"--args-file",
			file,
			"--root",
			root,
		]);
		expect(fromFile.code).toBe(0);
		expect(JSON.parse(fromFile.stdout).task.title).toBe("from a file");
		const fromStdin = await runCli(
			["mcp", "call", "--tool", "task.create", "--args-file", "-", "--root", root],
			{
				stdin: JSON.stringify({ title: "from stdin", body_md: "b" }),
			},
		);
		expect(fromStdin.code).toBe(0);
		expect(JSON.parse(fromStdin.stdout).task.title).toBe("from stdin");
	});

	test("unusable arguments exit 2 and call nothing", async () => {
		const noTool = await runCli(["mcp", "call", "--root", root]);
		expect(noTool.code).toBe(2);
		expect(noTool.stderr).toContain("--tool is required");
		const badJson = await call("task.create", "{title:");
		expect(badJson.code).toBe(2);
		expect(badJson.stderr).toContain("--args is not valid JSON");
		const both = await call("task.list", "{}", ["--args-file", "x.json"]);
		expect(both.code).toBe(2);
		expect(both.stderr).toContain("give --args or --args-file, not both");
		const missing = await runCli([
			"mcp",
			"call",
			"--tool",
			"task.list",
			"--args-file",
			"/nonexistent.json",
			"--root",
			root,
		]);
		expect(missing.code).toBe(2);
	});

	test("a directory that is not a project is a failed precondition, and nothing is created", async () => {
		const empty = tempDir();
		const r = await runCli(["mcp", "call", "--tool", "table.get_state", "--root", empty]);
		expect(r.code).toBe(1);
		const { error } = JSON.parse(r.stderr);
		expect(error.code).toBe("failed_precondition");
		expect(error.message).toContain("roundtable init");
		expect(existsSync(join(empty, ".roundtable"))).toBe(false);
	});
});

describe("mcp inspect", () => {
	test("lists tool names sorted, or JSON with implemented and mutates", async () => {
		const plain = await runCli(["mcp", "inspect"]);
		expect(plain.code).toBe(0);
		const names = plain.stdout.trim().split("\n");
		expect(names.length).toBe(61);
		// Sorted, as seed 000 says; the registry order is not.
		expect(names).toEqual([...names].sort());
		expect(names.slice(0, 3)).toEqual(["agent.brief", "agent.turn_complete", "agent.turn_request"]);
		const json = await runCli(["mcp", "inspect", "--json"]);
		const list = JSON.parse(json.stdout) as { name: string; mutates: boolean }[];
		expect(list.length).toBe(61);
		expect(list.find((t) => t.name === "task.create")).toEqual({ name: "task.create", mutates: true });
		expect(list.find((t) => t.name === "test.suggest")).toEqual({ name: "test.suggest", mutates: false });
	});

	test("--write regenerates the three assets", async () => {
		const target = join(root, ".roundtable/mcp/tools.schema.json");
		writeFileSync(target, "stale");
		const r = await runCli(["mcp", "inspect", "--write", "--root", root]);
		expect(r.code).toBe(0);
		expect(r.stdout).toContain("wrote .roundtable/mcp/tools.schema.json");
		expect(JSON.parse(await Bun.file(target).text()).tools.length).toBe(61);
	});
});

describe("table and watch", () => {
	test("table prints the table", async () => {
		await call("task.create", JSON.stringify({ title: "visible in the table", body_md: "b" }));
		const r = await runCli(["table", "--root", root]);
		expect(r.code).toBe(0);
		expect(r.stdout).toContain("AGENTS 8 (8 enabled)");
		expect(r.stdout).toMatch(/TASKS \d+\n/);
		expect(r.stdout).toContain("visible in the table");
		const json = await runCli(["table", "--json", "--root", root]);
		expect(Array.isArray(JSON.parse(json.stdout).tasks)).toBe(true);
	});

	test("watch prints the summary and the newest events", async () => {
		const r = await runCli(["watch", "--limit", "2", "--root", root]);
		expect(r.code).toBe(0);
		const lines = r.stdout.trim().split("\n");
		expect(lines[0]).toMatch(
			/^WATCH run=all active_agents=8 open_tasks=\d+ active_claims=0 suspended_claims=0$/,
		);
		expect(lines.filter((l) => l.startsWith("EVENT ")).length).toBe(2);
		expect(lines).toContain("OWNER none (start one with `roundtable start`)");
	});

	test("watch --follow prints every later event, in order, none skipped", async () => {
		const watcher = followWatch(root);
		const follower = watcher.proc;
		const { readUntil } = watcher;
		await readUntil(1); // the newest event: the follower is now on the cursor
		// More events than one page of the follower (limit 200 is its page; 5 is enough to show order).
		for (let i = 0; i < 5; i++)
			await call("task.create", JSON.stringify({ title: `followed ${i}`, body_md: "b" }));
		await readUntil(6);
		follower.kill("SIGINT");
		expect(await follower.exited).toBe(0);
		const events = watcher
			.text()
			.trim()
			.split("\n")
			.map((l) => JSON.parse(l));
		const followed = events.slice(1);
		expect(followed.map((e) => e.payload.title)).toEqual([0, 1, 2, 3, 4].map((i) => `followed ${i}`));
		const ids = events.map((e) => e.id);
		for (let i = 1; i < ids.length; i++) expect(ids[i]).toBe(ids[i - 1] + 1);
	}, 30_000);
});
