// readable_paths: the repository paths and globs a task's assignee may read. Credential and
// configuration locations and anything outside the repository are refused, naming the entry.
import { describe, expect, test } from "bun:test";
import { checkReadablePaths } from "../../src/domain/paths.ts";
import { ToolError } from "../../src/errors.ts";
import { allEvents, makeProject } from "../_helpers/helpers.ts";

/** The ToolError checkReadablePaths throws for `patterns`; fails if it accepts them. */
function refusal(patterns: string[]): ToolError {
	let thrown: unknown;
	try {
		checkReadablePaths(patterns);
	} catch (err) {
		thrown = err;
	}
	if (thrown === undefined) throw new Error(`accepted ${JSON.stringify(patterns)}`);
	expect(thrown).toBeInstanceOf(ToolError);
	return thrown as ToolError;
}

describe("accepted patterns", () => {
	test("ordinary paths and globs pass through", () => {
		const ok = ["src/**", "docs/*.md", ".github/workflows/ci.yml", "**/*.ts", "README.md", "src/*.key.ts"];
		expect(checkReadablePaths(ok)).toEqual(ok);
	});

	test("a leading ./ and surrounding blanks are normalized away", () => {
		expect(checkReadablePaths(["./lib/a.ts", "././src/**", "  docs/*.md "])).toEqual([
			"lib/a.ts",
			"src/**",
			"docs/*.md",
		]);
	});

	test("no patterns is no readable paths", () => {
		expect(checkReadablePaths([])).toEqual([]);
	});
});

describe("refused patterns", () => {
	const cases: [pattern: string, why: string][] = [
		[".git/config", "it could reach credentials or configuration (like '.git')"],
		[".git*", "it could reach credentials or configuration"],
		["src/.git/HEAD", "it could reach credentials or configuration (like '.git')"],
		[".roundtable/**", "it could reach credentials or configuration (like '.roundtable')"],
		[".env", "it could reach credentials or configuration (like '.env')"],
		["config/.env.local", "it could reach credentials or configuration (like '.env.local')"],
		["**/.env", "it could reach credentials or configuration (like '.env')"],
		[".e*", "it could reach credentials or configuration"],
		["*.pem", "it could reach credentials or configuration (like 'server.pem')"],
		["certs/*.key", "it could reach credentials or configuration (like 'server.key')"],
		["id_rsa", "it could reach credentials or configuration (like 'id_rsa')"],
		["keys/id_ed25519", "it could reach credentials or configuration (like 'id_ed25519')"],
		[".ssh/**", "it could reach credentials or configuration (like '.ssh')"],
		[".aws/credentials", "it could reach credentials or configuration (like '.aws')"],
		[".npmrc", "it could reach credentials or configuration (like '.npmrc')"],
		["{src,.git}/**", "it could reach credentials or configuration (like '.git')"],
		["~/.ssh/id_rsa", "it must be relative to the repository root"],
		["/etc/passwd", "it must be relative to the repository root"],
		["C:/x", "it must be relative to the repository root"],
		["../x", "it leaves the repository"],
		["src/../../x", "it leaves the repository"],
		["src/..", "it leaves the repository"],
		["src\\main.ts", "use forward slashes"],
		["", "name a path or glob inside the repository"],
		["   ", "name a path or glob inside the repository"],
		["./", "name a path or glob inside the repository"],
		["a\0b", "it contains a NUL byte"],
	];

	for (const [pattern, why] of cases) {
		test(`${JSON.stringify(pattern)} is refused`, () => {
			// second in the list, so the index in the message is checked too
			const err = refusal(["src/**", pattern]);
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toStartWith(`readable_paths[1] '${pattern}' is refused: `);
			expect(err.message).toContain(why);
			expect(err.details).toEqual({ field: "readable_paths[1]" });
		});
	}

	test("the first bad entry is the one named", () => {
		const err = refusal(["docs/**", ".env", "../x"]);
		expect(err.message).toBe(
			"readable_paths[1] '.env' is refused: it could reach credentials or configuration (like '.env')",
		);
		expect(refusal([".npmrc"]).details).toEqual({ field: "readable_paths[0]" });
	});

	test("every .env* file is refused, as the task.create documentation promises", () => {
		// .env.staging, .env.development and .envrc hold secrets just like .env and .env.local.
		for (const pattern of [".env.staging", ".env.development", "config/.env.test", ".envrc"]) {
			const err = refusal([pattern]);
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toContain(`readable_paths[0] '${pattern}' is refused`);
		}
	});
});

describe("through task.create", () => {
	test("a refused path fails with invalid_argument and creates no task and no event", async () => {
		const p = await makeProject();
		const eventsBefore = await allEvents(p);
		const refused: [string[], string][] = [
			[["src/**", ".roundtable/**"], "readable_paths[1] '.roundtable/**' is refused"],
			[["../secrets"], "readable_paths[0] '../secrets' is refused: it leaves the repository"],
			[["*.pem"], "readable_paths[0] '*.pem' is refused"],
			[[""], "readable_paths[0]"], // caught by the argument schema first
		];
		for (const [readable_paths, message] of refused) {
			const err = await p.fail("task.create", { title: "Read things", body_md: "Do it.", readable_paths });
			expect(err.code).toBe("invalid_argument");
			expect(err.message).toContain(message);
		}
		const err = await p.fail("task.create", {
			title: "Read things",
			body_md: "Do it.",
			task_id: "T-paths",
			readable_paths: ["docs/**", ".ssh/id_rsa"],
		});
		expect(err.toJSON()).toEqual({
			code: "invalid_argument",
			message:
				"readable_paths[1] '.ssh/id_rsa' is refused: it could reach credentials or configuration (like '.ssh')",
			details: { field: "readable_paths[1]" },
		});
		expect((await p.call("task.list")).tasks).toEqual([]);
		expect((await p.fail("task.get", { task_id: "T-paths" })).code).toBe("not_found");
		expect(await allEvents(p)).toEqual(eventsBefore);
	});

	test("accepted paths are stored normalized and reported in the event", async () => {
		const p = await makeProject();
		const out = (await p.call("task.create", {
			title: "Read things",
			body_md: "Do it.",
			readable_paths: ["./src/**", "docs/*.md"],
		})) as { task: { id: string; readable_paths: string[] } };
		expect(out.task.readable_paths).toEqual(["src/**", "docs/*.md"]);
		const got = (await p.call("task.get", { task_id: out.task.id })) as {
			task: { readable_paths: string[] };
		};
		expect(got.task.readable_paths).toEqual(["src/**", "docs/*.md"]);
		const created = (await allEvents(p)).filter((e) => e.type === "task.created");
		expect(created.map((e) => e.payload.readable_paths)).toEqual([["src/**", "docs/*.md"]]);
	});
});
