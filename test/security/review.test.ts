// security.review through the dispatcher: auto-scan of a proposal or a resource, and manual verdicts,
// over a real git repository.
import { afterEach, describe, expect, setSystemTime, test } from "bun:test";
import { type Flow as BaseFlow, flow as baseFlow } from "../_helpers/flow-helpers.ts";
import { allEvents, diffOf } from "../_helpers/helpers.ts";

interface Finding {
	code: string;
	severity: string;
	path: string;
	line: number;
	message: string;
}
interface Review {
	id: string;
	proposal_id: string | null;
	resource_id: string | null;
	task_id: string | null;
	reviewer_id: string;
	status: string;
	mode: string;
	summary_md: string;
	findings: Finding[];
	patch_revision: number | null;
}

// Credential-shaped test strings, assembled so this file itself carries no literal key.
const AWS_KEY = ["AKIA", "EXAMPLEEXAMPLE00"].join("");
const PASSWORD_LINE = 'const dbPassword = "q7Vx9LmP2rTz";';

interface Flow extends BaseFlow {
	review: (args: Record<string, unknown>) => Promise<{ review: Review; findings: Finding[] }>;
}

/** The shared flow, proposing at high risk by default, with security reviews. */
async function flow(files: Record<string, string>): Promise<Flow> {
	const f = await baseFlow(files);
	return {
		...f,
		propose: (args) => f.propose({ risk: "high", ...args }),
		async review(args) {
			return (await f.call("security.review", args)) as unknown as { review: Review; findings: Finding[] };
		},
	};
}

/** A high-risk README proposal by implementer-1 (needs a human approval). */
async function readmeProposal() {
	const f = await flow({ "README.md": "one\n" });
	await f.claim("implementer-1", "README.md");
	const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
	return { f, p };
}

afterEach(() => {
	setSystemTime(); // back to the real clock, should a test have frozen it
});

describe("security.review: auto-scan of a proposal", () => {
	test("findings carry path, line, code and severity, critical first; a critical finding vetoes", async () => {
		const f = await flow({ "src/config.ts": "export const region = 'eu';\n" });
		await f.claim("implementer-1", "src/config.ts");
		const patch = diffOf(
			f.p.root,
			"src/config.ts",
			[
				"export const region = 'eu';",
				PASSWORD_LINE,
				'execSync("rm -rf build");',
				`export const key = "${AWS_KEY}";`,
				"",
			].join("\n"),
		);
		const p = await f.propose({ risk: "normal", patch });
		const out = await f.review({ proposal_id: p.id });
		expect(out.findings.map((x) => [x.severity, x.code, x.path, x.line])).toEqual([
			["critical", "cloud_access_key", "src/config.ts", 4],
			["high", "hardcoded_secret", "src/config.ts", 2],
			["high", "dangerous_command", "src/config.ts", 3],
		]);
		for (const x of out.findings) expect(x.message.trim()).not.toBe("");
		// Messages name what was found, never the secret itself.
		expect(JSON.stringify(out)).not.toContain(AWS_KEY);
		expect(out.review).toMatchObject({
			proposal_id: p.id,
			resource_id: null,
			task_id: f.task,
			reviewer_id: "security-1",
			status: "veto",
			mode: "auto",
			patch_revision: 1,
		});
		expect(out.review.findings).toEqual(out.findings);
		expect(out.review.summary_md).toContain("3 finding");
		const event = (await allEvents(f.p)).find((e) => e.type === "security.reviewed");
		expect(event).toMatchObject({
			actor_id: "security-1",
			task_id: f.task,
			payload: {
				review_id: out.review.id,
				proposal_id: p.id,
				status: "veto",
				mode: "auto",
				findings: 3,
				patch_revision: 1,
			},
		});
		const v = await f.validate(p.id);
		expect(f.gate(v, "security_review").ok).toBe(false);
		expect(f.gate(v, "security_review").reason).toContain("vetoed");
	});

	test("findings without a critical one mean needs_changes", async () => {
		const f = await flow({ "src/config.ts": "export const region = 'eu';\n" });
		await f.claim("implementer-1", "src/config.ts");
		const p = await f.propose({
			patch: diffOf(f.p.root, "src/config.ts", `export const region = 'eu';\n${PASSWORD_LINE}\n`),
		});
		const out = await f.review({ proposal_id: p.id, reviewer_id: "reviewer-1" });
		expect(out.findings.map((x) => [x.severity, x.code, x.line])).toEqual([["high", "hardcoded_secret", 2]]);
		expect(out.review).toMatchObject({ status: "needs_changes", reviewer_id: "reviewer-1" });
		expect(f.gate(await f.validate(p.id), "security_review")).toMatchObject({
			ok: false,
			reason: "security review asks for changes to revision 1",
		});
	});

	test("no findings approve; only added lines are scanned (removing a key is no finding)", async () => {
		const f = await flow({ "src/config.ts": `export const key = "${AWS_KEY}";\n` });
		await f.claim("implementer-1", "src/config.ts");
		const p = await f.propose({
			patch: diffOf(f.p.root, "src/config.ts", 'export const key = process.env.AWS_KEY ?? "";\n'),
		});
		const out = await f.review({ proposal_id: p.id, summary_md: "Key moved to the environment." });
		expect(out.findings).toEqual([]);
		expect(out.review).toMatchObject({
			status: "approved",
			mode: "auto",
			summary_md: "Key moved to the environment.",
		});
		expect(f.gate(await f.validate(p.id), "security_review")).toMatchObject({ ok: true });
	});

	test("a review binds to the revision it saw and stops counting after attach_patch", async () => {
		const f = await flow({ "README.md": "one\n" });
		await f.claim("implementer-1", "README.md");
		const p = await f.propose({ patch: diffOf(f.p.root, "README.md", "two\n") });
		const out = await f.review({ proposal_id: p.id });
		expect(out.review).toMatchObject({ status: "approved", patch_revision: 1 });
		expect(f.gate(await f.validate(p.id), "security_review")).toMatchObject({ ok: true });
		await f.call("proposal.attach_patch", {
			proposal_id: p.id,
			agent_id: "implementer-1",
			patch: diffOf(f.p.root, "README.md", "three\n"),
		});
		const gate = f.gate(await f.validate(p.id), "security_review");
		expect(gate.ok).toBe(false);
		expect(gate.reason).toContain("none for revision 2");
		const again = await f.review({ proposal_id: p.id });
		expect(again.review.patch_revision).toBe(2);
		expect(f.gate(await f.validate(p.id), "security_review").ok).toBe(true);
	});

	test("the latest review counts: an approval after a veto lifts it", async () => {
		const { f, p } = await readmeProposal();
		await f.review({ proposal_id: p.id, status: "veto" });
		expect(f.gate(await f.validate(p.id), "security_review").ok).toBe(false);
		await f.review({ proposal_id: p.id, status: "approved" });
		expect(f.gate(await f.validate(p.id), "security_review").ok).toBe(true);
		await f.review({ proposal_id: p.id, status: "needs_changes" });
		expect(f.gate(await f.validate(p.id), "security_review").ok).toBe(false);
	});

	test("the latest review counts even within the same millisecond", async () => {
		const { f, p } = await readmeProposal();
		setSystemTime(new Date("2031-01-01T00:00:00.000Z"));
		await f.review({ proposal_id: p.id, review_id: "SR-2", status: "veto" });
		await f.review({ proposal_id: p.id, review_id: "SR-1", status: "approved" });
		setSystemTime();
		expect(f.gate(await f.validate(p.id), "security_review")).toMatchObject({
			ok: true,
			reason: "security review approved",
		});
	});
});

describe("security.review: a resource without a proposal", () => {
	const FILES = {
		"lib.ts": [
			"export function connect() {",
			`\t${PASSWORD_LINE}`,
			"}",
			"",
			`export const key = "${AWS_KEY}";`,
			"",
		].join("\n"),
		"cfg/app.yaml": "name: app\npassword: q7Vx9LmP2rTzW\n",
		"cfg/clean.ts": "export const ok = true;\n",
		"clean.ts": "export const fine = 1;\n",
	};

	test("a file is scanned as it is now: a critical finding vetoes", async () => {
		const f = await flow(FILES);
		const out = await f.review({ resource_id: "file:lib.ts" });
		expect(out.findings.map((x) => [x.severity, x.code, x.path, x.line])).toEqual([
			["critical", "cloud_access_key", "lib.ts", 5],
			["high", "hardcoded_secret", "lib.ts", 2],
		]);
		expect(out.review).toMatchObject({
			proposal_id: null,
			resource_id: "file:lib.ts",
			status: "veto",
			mode: "auto",
			patch_revision: null,
		});
		const event = (await allEvents(f.p)).find((e) => e.type === "security.reviewed");
		expect(event?.payload).toMatchObject({
			resource_id: "file:lib.ts",
			proposal_id: null,
			status: "veto",
			findings: 2,
		});
	});

	test("a clean file is approved; a missing one is not_found, never a silent approval", async () => {
		const f = await flow(FILES);
		const clean = await f.review({ resource_id: "file:clean.ts" });
		expect(clean.findings).toEqual([]);
		expect(clean.review.status).toBe("approved");
		const missing = await f.fail("security.review", { resource_id: "file:nope.ts" });
		expect(missing.code).toBe("not_found");
	});

	test("a symbol is scanned over its lines only", async () => {
		const f = await flow(FILES);
		await f.call("resource.claim", {
			resource_type: "symbol",
			resource_id: "symbol:lib.ts#connect",
			claim_type: "read",
			task_id: f.task,
			agent_id: "security-1",
			start_line: 1,
			end_line: 3,
		});
		const out = await f.review({ resource_id: "symbol:lib.ts#connect" });
		expect(out.findings.map((x) => [x.code, x.path, x.line])).toEqual([["hardcoded_secret", "lib.ts", 2]]);
		expect(out.review.status).toBe("needs_changes");
		// A symbol whose lines nobody knows is not reviewed at all.
		const unknown = await f.fail("security.review", { resource_id: "symbol:lib.ts#key" });
		expect(unknown.code).toBe("not_found");
	});

	test("a directory is scanned file by file, and nothing outside it", async () => {
		const f = await flow(FILES);
		const out = await f.review({ resource_id: "directory:cfg" });
		expect(out.findings.map((x) => [x.severity, x.code, x.path, x.line])).toEqual([
			["high", "hardcoded_secret", "cfg/app.yaml", 2],
		]);
		expect(out.review).toMatchObject({ status: "needs_changes", resource_id: "directory:cfg" });
		const root = await f.review({ resource_id: "directory:" });
		expect(root.review.status).toBe("veto");
		const paths = new Set(root.findings.map((x) => x.path));
		expect(paths.has("cfg/app.yaml") && paths.has("lib.ts")).toBe(true);
		expect(paths.has("cfg/clean.ts") || paths.has("clean.ts")).toBe(false);
	});

	test("a resource that is not a file, directory or symbol needs a manual status", async () => {
		const f = await flow(FILES);
		const err = await f.fail("security.review", { resource_id: "endpoint:/login" });
		expect(err.code).toBe("invalid_argument");
		const manual = await f.review({ resource_id: "endpoint:/login", status: "approved" });
		expect(manual.review).toMatchObject({
			status: "approved",
			mode: "manual",
			resource_id: "endpoint:/login",
		});
	});
});

describe("security.review: manual verdicts and arguments", () => {
	test("status approved, needs_changes or veto is recorded as a manual review", async () => {
		const { f, p } = await readmeProposal();
		for (const status of ["approved", "needs_changes", "veto"]) {
			const out = await f.review({ proposal_id: p.id, status });
			expect(out.findings).toEqual([]);
			expect(out.review).toMatchObject({
				proposal_id: p.id,
				status,
				mode: "manual",
				summary_md: "Security review recorded.",
				findings: [],
				patch_revision: 1,
			});
		}
		const events = (await allEvents(f.p)).filter((e) => e.type === "security.reviewed");
		expect(events.map((e) => e.payload.status)).toEqual(["approved", "needs_changes", "veto"]);
		expect(events.every((e) => e.payload.mode === "manual")).toBe(true);
	});

	test("any other status is invalid_argument", async () => {
		const { f, p } = await readmeProposal();
		for (const status of ["approve", "rejected", "ok", "VETO"]) {
			const err = await f.fail("security.review", { proposal_id: p.id, status });
			expect(err.code).toBe("invalid_argument");
		}
	});

	test("proposal_id or resource_id is required; unknown proposals are not_found; review ids are unique", async () => {
		const { f, p } = await readmeProposal();
		for (const args of [{}, { status: "approved" }, { task_id: f.task }]) {
			const err = await f.fail("security.review", args);
			expect(err.code).toBe("invalid_argument");
		}
		expect((await f.fail("security.review", { proposal_id: "P-nope" })).code).toBe("not_found");
		expect((await f.fail("security.review", { proposal_id: "P-nope", status: "approved" })).code).toBe(
			"not_found",
		);
		await f.review({ proposal_id: p.id, review_id: "SR-mine", status: "approved" });
		expect(
			(await f.fail("security.review", { proposal_id: p.id, review_id: "SR-mine", status: "veto" })).code,
		).toBe("already_exists");
	});
});
