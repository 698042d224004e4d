// `roundtable inbox|ask|answer`: a person taking part in peer questions and messages from the
// terminal, on a project made by `roundtable init`. The commands run in process; `inbox --follow`
// runs as the real CLI, since following until Ctrl-C is what it is for.
import { afterAll, describe, expect, test } from "bun:test";
import { call } from "../../src/dispatch.ts";
import { cliHere } from "../_helpers/cli.ts";
import { agentContext, MAIN, makeProject, until } from "../_helpers/helpers.ts";

const p = await makeProject();
const cli = (...args: string[]) => cliHere([...args, "--root", p.root]);
const asImplementer = await agentContext(p, "implementer-1");

describe("roundtable ask and answer", () => {
	test("the operator asks an agent; the agent's answer is printed, and the request is answered", async () => {
		const asked = await cli("ask", "--to", "implementer-1", "Which module owns the retry?");
		expect(asked.code).toBe(0);
		const id = /^ASK (Q-\S+) operator → implementer-1 open: Which module owns the retry\?$/m.exec(
			asked.stdout,
		)?.[1];
		expect(id).toBeDefined();
		await call(p.rt, "peer.answer", { request_id: id, answer_md: "src/retry.ts" }, asImplementer);
		const read = await call(p.rt, "peer.request", { request_id: id }, p.ctx);
		expect(read.request.status).toBe("answered");
		expect(read.answers.map((a) => a.answer_md)).toEqual(["src/retry.ts"]);
	});

	test("ask --wait prints the answer when it comes, or exits 3 with the request still open", async () => {
		const timedOut = await cli("ask", "--to", "implementer-2", "Anyone?", "--wait", "200ms", "--json");
		expect(timedOut.code).toBe(3);
		const out = JSON.parse(timedOut.stdout) as {
			request: { id: string; status: string };
			timed_out: boolean;
		};
		expect(out).toMatchObject({ request: { status: "open" }, timed_out: true });
	});

	test("an agent's question to the operator is answered with `answer REQUEST TEXT`", async () => {
		const { request } = await call(
			p.rt,
			"peer.ask",
			{ assignee_agent_id: "operator", question_md: "May I touch the schema?" },
			asImplementer,
		);
		const inbox = await cli("inbox");
		expect(inbox.stdout).toContain(
			`ASK ${request.id} implementer-1 → operator open: May I touch the schema?`,
		);
		const answered = await cli("answer", request.id, "Yes, with a migration.");
		expect(answered.code).toBe(0);
		expect(answered.stdout).toContain(`ASK ${request.id} implementer-1 → operator answered`);
		expect(answered.stdout).toMatch(/^ANSWER QA-\S+ operator \S+: Yes, with a migration\.$/m);
		expect((await cli("inbox")).stdout).not.toContain(request.id);
	});

	test("--late replies to a cancelled request, which stays cancelled", async () => {
		const { request } = await call(
			p.rt,
			"peer.ask",
			{ assignee_agent_id: "operator", question_md: "Still needed?" },
			asImplementer,
		);
		await call(p.rt, "peer.cancel", { request_id: request.id, reason_md: "found it" }, asImplementer);
		const plain = await cli("answer", request.id, "too late");
		expect(plain.code).toBe(1);
		expect(plain.stderr).toContain("peer.reply_late");
		const late = await cli("answer", request.id, "for the record", "--late", "--json");
		expect(late.code).toBe(0);
		expect(JSON.parse(late.stdout)).toMatchObject({
			request: { status: "cancelled" },
			answer: { late: true, answer_md: "for the record" },
		});
	});

	test("what is missing or unknown is a usage error (exit 2) or the tool's error (exit 1)", async () => {
		expect((await cli("ask", "a question")).code).toBe(2);
		expect((await cli("ask", "--to", "implementer-1")).code).toBe(2);
		expect((await cli("answer", "Q-x")).code).toBe(2);
		expect((await cli("answer", "Q-x", "a", "b")).code).toBe(2);
		const tooLong = await cli("ask", "--to", "implementer-1", "hi", "--wait", "1m");
		expect(tooLong.code).toBe(2);
		expect(tooLong.stderr).toContain("--wait is at most 30s");
		const unknown = await cli("ask", "--to", "implementr-1", "hi");
		expect(unknown.code).toBe(1);
		expect(unknown.stderr).toContain("did you mean 'implementer-1'");
	});
});

describe("roundtable inbox", () => {
	test("messages addressed to the operator, approvals awaiting a decision; --as reads an agent's", async () => {
		await call(
			p.rt,
			"message.post",
			{ to_agent_id: "operator", body_md: "Build is red\nsee CI" },
			asImplementer,
		);
		await call(p.rt, "message.post", { to_agent_id: "implementer-1", body_md: "Please rebase" }, p.ctx);
		const mine = await cli("inbox");
		expect(mine.stdout).toMatch(/^MSG MSG-\S+ implementer-1 → operator \S+ unread: Build is red$/m);
		expect(mine.stdout).not.toContain("Please rebase");
		const theirs = await cli("inbox", "--as", "implementer-1");
		expect(theirs.stdout).toMatch(/^MSG MSG-\S+ operator → implementer-1 \S+ unread: Please rebase$/m);
		// Reading is not marking read.
		expect((await cli("inbox", "--as", "implementer-1")).stdout).toContain("Please rebase");
	});

	test("--follow prints each new message once as it arrives, until interrupted", async () => {
		const proc = Bun.spawn([process.execPath, MAIN, "inbox", "--follow", "--root", p.root], {
			stdout: "pipe",
			stderr: "pipe",
		});
		afterAll(() => proc.kill("SIGKILL"));
		let out = "";
		void (async () => {
			for await (const chunk of proc.stdout) out += Buffer.from(chunk).toString("utf8");
		})();
		// The first read shows what is there already; then a new message arrives from elsewhere.
		await until(() => out.includes("Build is red"), 20_000, "the first inbox read");
		await call(p.rt, "message.post", { to_agent_id: "operator", body_md: "Tests pass now" }, asImplementer);
		await until(() => out.includes("Tests pass now"), 20_000, "the new message");
		await call(p.rt, "message.post", { channel: "general", body_md: "quiet channel" }, asImplementer);
		await call(p.rt, "message.post", { to_agent_id: "operator", body_md: "and one more" }, asImplementer);
		await until(() => out.includes("and one more"), 20_000, "the next message");
		proc.kill("SIGINT");
		expect(await proc.exited).toBe(0);
		expect(out.match(/Tests pass now/g)?.length).toBe(1);
		expect(out.match(/Build is red/g)?.length).toBe(1);
		expect(out).not.toContain("quiet channel");
	});
});
