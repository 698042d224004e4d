// The dashboard's Sessions view and a session's transcript page in headless Chromium, against a real
// owner running headless sessions of a scripted agent: a live one (its binding, attempt, age and the
// last line it wrote, which moves on without a reload) and one that ended after two attempts. The
// transcript page shows what the agent wrote with its capability redacted, and follows it live.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { cliHere } from "../_helpers/cli.ts";
import { commitAll, makeProject, REPO, tempDir, until } from "../_helpers/helpers.ts";
import { brief, closed } from "../_helpers/session-life.ts";
import {
	chromiumMissing,
	launchBrowser,
	type Owner,
	type PageGlobals,
	startOwner,
	type Watch,
	watchPage,
} from "./browser.ts";

declare const document: PageGlobals["document"];
declare const location: PageGlobals["location"];

const ARTIFACTS = join(REPO, "test", "artifacts");

let root = "";
let owner: Owner;
let browser: Browser;
let page: Page;
let watch: Watch;

async function start(...args: string[]): Promise<string> {
	const r = await cliHere(["sessions", "start", "--root", root, ...args]);
	if (r.code !== 0) throw new Error(r.stderr);
	return r.stdout.trim();
}

describe.skipIf(chromiumMissing !== null)("the dashboard's sessions", () => {
	let talky = "";
	let failing = "";
	beforeAll(async () => {
		mkdirSync(ARTIFACTS, { recursive: true });
		const scripts = tempDir("rt-dashboard-agents-");
		const talk = join(scripts, "talk.sh");
		// Says its capability (which the transcript must redact), then counts, a line a second.
		writeFileSync(
			talk,
			'echo "my capability is $ROUNDTABLE_CAPABILITY"\ni=0\nwhile :; do i=$((i+1)); echo "step $i"; sleep 1; done\n',
		);
		const fail = join(scripts, "fail.sh");
		writeFileSync(fail, 'echo "model unreachable"; exit 2\n');
		root = tempDir("rt-dashboard-sessions-");
		commitAll(root, { "src/a.ts": "export const a = 1;\n" });
		(
			await makeProject({
				root,
				config: [
					"mcp:",
					"  http_address: 127.0.0.1:0",
					"sessions:",
					"  sandbox: off",
					"  retry_backoff_ms: 100",
					"run:",
					"  max_wall_seconds: 1",
					"adapters:",
					`  talky: { command: /bin/sh ${talk}, headless: /bin/sh ${talk} }`,
					`  failing: { command: /bin/sh ${fail}, headless: /bin/sh ${fail} }`,
					"",
				].join("\n"),
			})
		).close();
		owner = await startOwner(root);
		const task = await cliHere([
			"mcp",
			"call",
			"--root",
			root,
			"--tool",
			"task.create",
			"--args",
			JSON.stringify({ task_id: "T-1", title: "Count", body_md: "b", assigned_agent_id: "implementer-1" }),
		]);
		expect(task.code, task.stderr).toBe(0);
		failing = await start("--agent", "reviewer-1", "--adapter", "failing");
		expect(brief(await closed(root, failing))).toContain("gave_up");
		talky = await start("--agent", "implementer-1", "--task", "T-1", "--adapter", "talky");
		browser = await launchBrowser();
		page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
		watch = await watchPage(page);
		await page.goto(owner.login);
		await page.waitForSelector("main .view");
	}, 120_000);

	afterAll(async () => {
		await browser?.close();
		if (owner) expect(await owner.stop()).toBe(0);
	}, 30_000);

	const cellText = (section: string, id: string) =>
		page
			.locator(`section[aria-labelledby="${section}-h"] tr`, { has: page.locator(`a[title="${id}"]`) })
			.textContent();

	const cell = (section: string, id: string, label: string) =>
		page
			.locator(`section[aria-labelledby="${section}-h"] tr`, { has: page.locator(`a[title="${id}"]`) })
			.locator(`td[data-label="${label}"]`)
			.textContent();

	test("the Sessions view: the live one with its binding, attempt, age and last line, moving on by itself; the ended one under Recent", async () => {
		await page.evaluate(() => {
			location.hash = "#/sessions";
		});
		await page.waitForSelector('section[aria-labelledby="sessions-live-h"]');
		expect(await page.locator("nav a[aria-current=page]").textContent()).toBe("Sessions1");
		const first = await until(
			async () => {
				const row = await cellText("sessions-live", talky);
				return /step \d+/.test(row ?? "") && (row as string);
			},
			15_000,
			"the live session's last line",
		);
		expect(first).toContain("implementer-1");
		expect(first).toContain("task T-1");
		expect(first).toContain("live");
		const step = Number(/step (\d+)/.exec(first)?.[1]);
		// No event marks an agent's output: the view reads it again while a live session is shown.
		await until(
			async () => Number(/step (\d+)/.exec((await cellText("sessions-live", talky)) ?? "")?.[1]) > step,
			10_000,
			"the last line to move on",
		);
		const ended = (await cellText("sessions-recent", failing)) as string;
		expect(ended).toContain("reviewer-1");
		expect(ended).toContain("ended");
		expect(ended).toContain("model unreachable");
		expect(await cell("sessions-recent", failing, "Attempt")).toBe("2");
		expect(await cell("sessions-live", talky, "Attempt")).toBe("1");
		expect(await cell("sessions-live", talky, "Age")).toMatch(/^\d+ s$/);
		await page.screenshot({ path: join(ARTIFACTS, "dashboard-sessions.png"), fullPage: true });
		expect(watch.problems).toEqual([]);
	}, 60_000);

	test("an autopilot that paused says why on the overview, under Needs you, and shows paused on its run, and what its sessions came to", async () => {
		const opened = await cliHere([
			"mcp",
			"call",
			"--root",
			root,
			"--tool",
			"run.open",
			"--args",
			JSON.stringify({ run_id: "R-1", autopilot: true }),
		]);
		expect(opened.code, opened.stderr).toBe(0);
		await page.evaluate(() => {
			location.hash = "#/";
		});
		const note = page.locator('section[aria-labelledby="attention-h"] li', { hasText: "R-1" });
		await note.waitFor({ timeout: 20_000 });
		expect(await note.textContent()).toMatch(
			/paused R-1 run\.max_wall_seconds reached: the run began \d+ s ago/,
		);
		const row = page.locator('section[aria-labelledby="runs-h"] tr', { hasText: "R-1" });
		expect(await row.locator('td[data-label="Autopilot"]').textContent()).toBe("paused");
		// A session of the run that is given up: the run's row counts it once a tick has.
		const given = await start("--agent", "reviewer-1", "--run", "R-1", "--adapter", "failing");
		expect(brief(await closed(root, given))).toContain("gave_up");
		await page
			.locator('section[aria-labelledby="runs-h"] tr', { hasText: "R-1" })
			.locator('td[data-label="Sessions"]', { hasText: "given up" })
			.waitFor({ timeout: 20_000 });
		expect(await row.locator('td[data-label="Sessions"]').textContent()).toBe("1 (0 live) 1 given up");
		expect(watch.problems).toEqual([]);
	}, 60_000);

	test("a task the Architect proposed: under Needs you, and opened with a click on the Tasks view", async () => {
		const mcp = (tool: string, args: object) =>
			cliHere(["mcp", "call", "--root", root, "--tool", tool, "--args", JSON.stringify(args)]);
		// A proposed task, as a promoted message makes one (the Architect's task.create makes them too).
		const posted = JSON.parse(
			(await mcp("message.post", { channel: "ideas", body_md: "Proposed work\nwhy" })).stdout,
		);
		const promoted = await mcp("message.promote", { message_id: posted.message.id, as: "task" });
		const task = JSON.parse(promoted.stdout).task.id as string;
		await page.evaluate(() => {
			location.hash = "#/";
		});
		await page.getByRole("link", { name: "1 proposed task(s) to open or cancel" }).click();
		await page.waitForFunction(() => location.hash === "#/tasks");
		await page.locator(`tr.task-${task}`).getByRole("button", { name: "Open" }).click();
		await until(
			// Open, or already taken up by the Chair (an active run adopts and assigns it).
			async () => JSON.parse((await mcp("task.get", { task_id: task })).stdout).task.status !== "proposed",
			10_000,
			"the task to open",
		);
		expect(watch.problems).toEqual([]);
	}, 60_000);

	test("a session's transcript page: what it wrote, its capability redacted, followed live", async () => {
		await page.evaluate(() => {
			location.hash = "#/sessions";
		});
		await page.locator(`section[aria-labelledby="sessions-live-h"] a[title="${talky}"]`).click();
		await page.waitForFunction((id) => location.hash === `#/sessions/${id}`, talky);
		const pre = page.locator("pre.transcript");
		await pre.waitFor();
		const text = (await pre.textContent()) as string;
		expect(text).toContain("my capability is [redacted]");
		expect(text).not.toMatch(/my capability is \S{20,}(?<!\[redacted\])$/m);
		const lines = text.split("\n").filter(Boolean).length;
		await until(
			async () => ((await pre.textContent()) ?? "").split("\n").filter(Boolean).length > lines,
			10_000,
			"the transcript to grow",
		);
		expect(await page.locator("dl.facts").textContent()).toContain("implementer-1 (Implementer)");
		await page.screenshot({ path: join(ARTIFACTS, "dashboard-transcript.png"), fullPage: true });
		// Stopped, the page says so, and the transcript keeps what it wrote.
		const stop = await cliHere(["sessions", "stop", talky, "--root", root]);
		expect(stop.code, stop.stderr).toBe(0);
		await page.waitForFunction(
			() => document.querySelector("dl.facts")?.textContent?.includes("ended") ?? false,
			undefined,
			{
				timeout: 20_000,
			},
		);
		expect(watch.problems).toEqual([]);
	}, 60_000);
});
