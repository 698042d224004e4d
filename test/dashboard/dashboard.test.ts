// The operator's dashboard in a real browser: a real owner (`roundtable start`, HTTP on 127.0.0.1
// port 0, a real SQLite table seeded through the owner's socket) and headless Debian Chromium driven
// by playwright-core. The page loads clean (no console error, no CSP violation) and every main view
// renders (screenshots under test/artifacts/); a change made by another process shows without a
// reload; an approval clicked on the page is recorded and makes patch.validate pass, and a rollback
// clicked there rolls back; decisions are refused from another origin, without the CSRF token and
// without the cookie; hostile Markdown renders inert. Skipped, saying why, when Chromium is absent.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { cliHere } from "../_helpers/cli.ts";
import { commitAll, lacks, makeProject, REPO, runCli, tempDir } from "../_helpers/helpers.ts";
import {
	chromiumMissing,
	launchBrowser,
	type Owner,
	type PageGlobals,
	type PageNode,
	startOwner,
	type Watch,
	watchPage,
} from "./browser.ts";
import { FILES, type Seeded, seedTable } from "./seed.ts";

declare const window: PageGlobals["window"];
declare const document: PageGlobals["document"];
declare const location: PageGlobals["location"];
declare const getComputedStyle: PageGlobals["getComputedStyle"];

const ARTIFACTS = join(REPO, "test", "artifacts");
if (chromiumMissing) console.warn(`skipping the dashboard's browser tests: ${chromiumMissing}`);

let root: string;
let owner: Owner;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let watch: Watch;
let seeded: Seeded;

/** A tool called through the live owner's socket, as `roundtable mcp call --socket` does. */
async function mcp(tool: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
	const r = await cliHere([
		"mcp",
		"call",
		"--root",
		root,
		"--socket",
		"--tool",
		tool,
		"--args",
		JSON.stringify(args),
	]);
	if (r.code !== 0) throw new Error(`${tool}: ${r.stderr}`);
	return JSON.parse(r.stdout) as Record<string, unknown>;
}

/** A full-page screenshot under test/artifacts/, from the top (so the sticky header is where it belongs). */
async function shot(name: string, p = page) {
	await p.evaluate(() => window.scrollTo(0, 0));
	await p.screenshot({ path: join(ARTIFACTS, `dashboard-${name}.png`), fullPage: true });
}

/** A panel of a view, by the id its heading carries. */
const panel = (id: string) => `section[aria-labelledby="${id}-h"]`;

/** Goes to a view by its hash and waits until that view (not the one before) is drawn. */
async function show(hash: string, p = page) {
	await p.evaluate((h) => {
		if (location.hash === h) return;
		document.querySelector("main .view")?.setAttribute("data-left", "");
		location.hash = h;
	}, hash);
	await p.waitForSelector("main .view:not([data-left])");
}

describe.skipIf(chromiumMissing !== null)("the dashboard in headless Chromium", () => {
	beforeAll(async () => {
		mkdirSync(ARTIFACTS, { recursive: true });
		root = tempDir("rt-dashboard-");
		commitAll(root, FILES);
		(await makeProject({ root, config: "mcp:\n  http_address: 127.0.0.1:0\n" })).close();
		owner = await startOwner(root);
		seeded = await seedTable(mcp);
		browser = await launchBrowser();
		context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
		page = await context.newPage();
		watch = await watchPage(page);
		await page.goto(owner.login);
		await page.waitForSelector("main .view");
	}, 120_000);

	afterAll(async () => {
		await browser?.close();
		if (owner) expect(await owner.stop()).toBe(0);
	}, 30_000);

	test("logging in lands on the app at / (the token gone from the URL); every view renders without a console error or CSP violation", async () => {
		expect(page.url()).toBe(`${owner.base}/`);
		await page.waitForSelector("#conn.conn-live");
		const views: [string, string, string][] = [
			["overview", "#/", "Runs and convergence"],
			["tasks", "#/tasks", "Tidy the README"],
			["claims", "#/claims", "auth/login.ts"],
			["proposals", "#/proposals", "Require a real password"],
			["transactions", "#/transactions", "Roll back…"],
			["approvals", "#/approvals", "Ship the stricter login check"],
			["messages", "#/messages", "Should the minimum be"],
		];
		for (const [name, hash, text] of views) {
			await show(hash);
			await page.getByText(text).first().waitFor();
			await shot(name);
		}
		await show("#/memory");
		await page.fill("#memory-q", "password");
		await page.press("#memory-q", "Enter");
		await page.getByRole("button", { name: "Passwords are never stored in code" }).waitFor();
		await shot("memory");

		// The overview at a narrow window and in dark mode: readable both ways.
		await show("#/");
		await page.setViewportSize({ width: 400, height: 800 });
		await shot("overview-narrow");
		await page.setViewportSize({ width: 1280, height: 800 });
		await page.emulateMedia({ colorScheme: "dark" });
		await shot("overview-dark");
		await page.emulateMedia({ colorScheme: "light" });
		expect(watch.problems).toEqual([]);
	}, 60_000);

	test.skipIf(lacks("make") !== null)(
		"a proposal's detail: gates with reasons, votes, security findings on their diff lines, the test run with its sandbox and log",
		async () => {
			await show(`#/proposals/${seeded.auth}`);
			await page.waitForSelector(".proposal-head");
			const gate = page.locator(".gate", { hasText: "human_approval" });
			await expect(gate.getAttribute("class")).resolves.toContain("fail");
			expect(await page.locator("section[aria-labelledby=p-votes-h] tbody tr").count()).toBe(3);
			// Revision 2 is clean; revision 1's two findings sit under lines 3 and 6 of auth/login.ts.
			await page.getByRole("button", { name: "r1" }).click();
			await page.waitForSelector(".finding-row");
			const findings = await page.$$eval(".diff .finding-row", (rows) =>
				rows.map((r) => [
					(r.previousElementSibling?.querySelectorAll(".ln")[1]?.textContent ?? "").trim(),
					r.textContent,
				]),
			);
			expect(findings.map(([line]) => line)).toEqual(["3", "6"]);
			expect(findings[0]?.[1]).toContain("hardcoded_secret");
			expect(findings[1]?.[1]).toContain("dangerous_command");
			await page.getByRole("button", { name: "Side by side" }).click();
			expect(await page.locator(".diff-table.split .finding-row").count()).toBe(2);
			await shot("proposal-findings");
			await page.getByRole("button", { name: "Unified" }).click();
			await page.getByRole("button", { name: "r2" }).click();
			const run = page.locator("section[aria-labelledby=p-tests-h] tbody tr").first();
			await expect(run.textContent()).resolves.toContain("make test");
			await expect(run.textContent()).resolves.toMatch(/bwrap|none/);
			await page.getByRole("button", { name: "Show log" }).click();
			await page.getByText("all 3 checks passed").waitFor();
			await shot("proposal");
			expect(watch.problems).toEqual([]);
		},
		60_000,
	);

	test("the keyboard alone: digits switch views, / focuses memory search, Tab and Enter open a decision's confirm step, Escape closes it and focus returns", async () => {
		await show("#/");
		await page.keyboard.press("2");
		await page.waitForFunction(() => location.hash === "#/tasks");
		await page.keyboard.press("6");
		await page.waitForFunction(() => location.hash === "#/approvals");
		await page.keyboard.press("/");
		// The view is drawn on hashchange, an event after the hash itself changes: wait for the focus.
		await page.waitForFunction(
			() => location.hash === "#/memory" && document.activeElement?.id === "memory-q",
		);
		await show("#/approvals");
		// Tab from the top of the page until the Approve button has focus, and that focus shows.
		await page.evaluate(() => document.activeElement?.blur());
		let label = "";
		for (let i = 0; i < 40 && label !== "Approve…"; i++) {
			await page.keyboard.press("Tab");
			label = await page.evaluate(() => document.activeElement?.textContent ?? "");
		}
		expect(label).toBe("Approve…");
		const outline = await page.evaluate(
			() => getComputedStyle(document.activeElement as PageNode).outlineStyle,
		);
		expect(outline).toBe("solid");
		await page.keyboard.press("Enter");
		await page.getByRole("button", { name: "Confirm approval" }).waitFor();
		expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("TEXTAREA");
		await page.keyboard.press("Escape");
		await page.getByRole("button", { name: "Approve…" }).first().waitFor();
		expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Approve…");
		expect(
			(
				(await mcp("human.approval_status", { approval_id: seeded.authApproval })) as {
					approval: { status: string };
				}
			).approval.status,
		).toBe("requested");
		expect(watch.problems).toEqual([]);
	}, 30_000);

	test("a task created by another process appears without a reload", async () => {
		await show("#/tasks");
		await page.evaluate(() => {
			window.__sameDocument = true;
		});
		const r = await runCli([
			"mcp",
			"call",
			"--root",
			root,
			"--tool",
			"task.create",
			"--args",
			JSON.stringify({ title: "Made in another process", body_md: "from a subprocess" }),
		]);
		expect(r.code).toBe(0);
		await page.getByText("Made in another process").waitFor({ timeout: 10_000 });
		expect(await page.evaluate(() => window.__sameDocument)).toBe(true);
		expect(watch.problems).toEqual([]);
	}, 30_000);

	test("an approval clicked on the page is recorded as the operator's and makes patch.validate pass", async () => {
		const before = (await mcp("patch.validate", { proposal_id: seeded.auth })) as {
			approvable: boolean;
			gates: { gate: string; ok: boolean }[];
		};
		expect(before.approvable).toBe(false);
		expect(before.gates.filter((g) => !g.ok).map((g) => g.gate)).toEqual(["human_approval"]);

		await show("#/approvals");
		const row = page.locator(`.approval-${seeded.authApproval}`).first();
		await row.getByRole("button", { name: "Approve…" }).click();
		// The confirm step: nothing is sent until it is confirmed.
		expect(
			(
				(await mcp("human.approval_status", { approval_id: seeded.authApproval })) as {
					approval: { status: string };
				}
			).approval.status,
		).toBe("requested");
		await page.getByLabel("Decision note (optional, Markdown)").fill("Read the diff; the scan is clean.");
		await shot("approval-confirm");
		await page.getByRole("button", { name: "Confirm approval" }).click();
		await page.getByText(`${seeded.authApproval} approved.`).waitFor();

		const status = (await mcp("human.approval_status", { approval_id: seeded.authApproval })) as {
			approval: { status: string; decided_by: string; decision_md: string; override_policy: boolean };
			current: boolean;
		};
		expect(status.approval).toMatchObject({
			status: "approved",
			decided_by: "operator",
			decision_md: "Read the diff; the scan is clean.",
			override_policy: false,
		});
		expect(status.current).toBe(true);
		const after = (await mcp("patch.validate", { proposal_id: seeded.auth })) as {
			approvable: boolean;
			gates: { ok: boolean }[];
		};
		expect(after.gates.filter((g) => !g.ok)).toEqual([]);
		expect(after.approvable).toBe(true);
		// The page follows: the request moved to Decided, and the proposal's gate passes there too.
		await page
			.locator("section[aria-labelledby=approvals-decided-h]")
			.getByText("Ship the stricter login check")
			.waitFor();
		await show(`#/proposals/${seeded.auth}`);
		await page.locator(".gate.ok", { hasText: "human_approval" }).waitFor();
		expect(watch.problems).toEqual([]);
	}, 30_000);

	test("an applied proposal shows applied, the gates it was applied under, its transaction with Roll back; its task shows it", async () => {
		await show(`#/proposals/${seeded.docs}`);
		expect(await page.textContent(".proposal-head .meta .pill")).toBe("applied");
		expect(await page.textContent(`${panel("p-gates")} .gate-summary`)).toContain(
			"the gates as they stood when TX-…",
		);
		const marks = await page.$$eval(`${panel("p-gates")} li.gate`, (els) => els.map((e) => e.className));
		expect(marks.length).toBeGreaterThan(3);
		expect(marks.filter((c) => c !== "gate ok")).toEqual([]);
		expect(await page.textContent(`${panel("p-applied")} .applied-${seeded.docsTx}`)).toContain("applied");
		expect(await page.locator(panel("p-applied")).getByRole("button", { name: "Roll back…" }).count()).toBe(
			1,
		);
		await shot("proposal-applied");
		const { proposal } = (await mcp("proposal.get", { proposal_id: seeded.docs })) as {
			proposal: { task_id: string };
		};
		expect(
			((await mcp("task.get", { task_id: proposal.task_id })) as { task: { status: string } }).task.status,
		).toBe("done");
		await show("#/tasks");
		await page.click('[data-key="filter:all"]');
		expect(await page.textContent(`.task-${proposal.task_id} .task-proposal`)).toContain("applied");
		expect(watch.problems).toEqual([]);
	}, 30_000);

	test("a rollback clicked on the page rolls the transaction back, with its reason", async () => {
		await show("#/transactions");
		await page.getByRole("button", { name: "Roll back…" }).click();
		await page.getByLabel("Reason (optional, Markdown)").fill("The one-liner says too little.");
		await page.getByRole("button", { name: "Confirm roll back" }).click();
		await page.getByText(`${seeded.docsTx} rolled back`).waitFor();
		const state = (await mcp("table.get_state", {})) as {
			transactions: { id: string; status: string; rolls_back: string | null; reason_md: string | null }[];
		};
		expect(state.transactions.find((t) => t.id === seeded.docsTx)?.status).toBe("rolled_back");
		expect(state.transactions.find((t) => t.rolls_back === seeded.docsTx)?.reason_md).toBe(
			"The one-liner says too little.",
		);
		expect(watch.problems).toEqual([]);
	}, 30_000);

	test("a rolled-back proposal says so, and by which transaction", async () => {
		await show(`#/proposals/${seeded.docs}`);
		await page.waitForSelector(`${panel("p-applied")} .rolled-back`);
		expect(await page.textContent(".proposal-head .meta .pill")).toBe("rolled back");
		expect(await page.textContent(`${panel("p-applied")} .rolled-back`)).toContain("Rolled back in");
		expect(await page.locator(panel("p-applied")).getByRole("button", { name: "Roll back…" }).count()).toBe(
			0,
		);
		expect(await page.textContent(`${panel("p-gates")} .gate-summary`)).toContain("as applied");
		expect(watch.problems).toEqual([]);
	}, 30_000);

	test("a request decided elsewhere while its confirm step is open: the page says so, and the owner refuses the stale decision", async () => {
		const { approval } = (await mcp("human.request_approval", {
			subject: "Decided twice",
			reason_md: "Two people look at once.",
			task_id: seeded.hostileTask,
		})) as { approval: { id: string } };
		await show("#/approvals");
		const row = page.locator(`.approval-${approval.id}`).first();
		await row.getByRole("button", { name: "Approve…" }).click();
		await mcp("human.decide", { approval_id: approval.id, status: "rejected", decision_md: "No." });
		await page.getByText("This changed since you opened this form").waitFor();
		const seen = watch.problems.length;
		await page.getByRole("button", { name: "Confirm approval" }).click();
		await page.getByText(/Refused — conflict/).waitFor();
		expect(watch.problems.splice(seen).every((p) => /status of 409/.test(p))).toBe(true);
		const status = (await mcp("human.approval_status", { approval_id: approval.id })) as {
			approval: { status: string };
		};
		expect(status.approval.status).toBe("rejected");
		await page.keyboard.press("Escape");
		expect(watch.problems).toEqual([]);
	}, 30_000);

	test("a decision is refused from another origin, without the CSRF token, and without the cookie", async () => {
		const { approval } = (await mcp("human.request_approval", {
			subject: "Never decided",
			reason_md: "Only refusals reach this one.",
			task_id: seeded.hostileTask,
		})) as { approval: { id: string } };
		const url = `${owner.base}/api/approvals/${approval.id}`;
		const csrf = await page.evaluate(
			async () => ((await (await fetch("/api/state")).json()) as { csrf_token: string }).csrf_token,
		);
		const body = JSON.stringify({ status: "approved" });

		// The refused requests below are expected to be logged by the browser as failed loads.
		const seen = watch.problems.length;
		// From the dashboard's own page, but without the token: 403.
		const noToken = await page.evaluate(
			async ([u, b]) =>
				(
					await fetch(u as string, {
						method: "POST",
						headers: { "content-type": "application/json" },
						body: b as string,
					})
				).status,
			[url, body],
		);
		expect(noToken).toBe(403);

		// From a page of another origin (same site, so the SameSite=Strict cookie goes along): the
		// classic forged form, which any page may submit, is refused by the owner.
		const form = `<!doctype html><title>other</title><form method="post" action="${url}" enctype="text/plain"><input name='{"status":"approved","x":"' value='"}'><button>go</button></form>`;
		const other = Bun.serve({
			hostname: "127.0.0.1",
			port: 0,
			fetch: () => new Response(form, { headers: { "content-type": "text/html" } }),
		});
		try {
			const foreign = await context.newPage();
			await foreign.goto(`http://127.0.0.1:${other.port}/`);
			const [forged] = await Promise.all([
				foreign.waitForResponse((r) => r.url() === url),
				foreign.getByRole("button", { name: "go" }).click(),
			]);
			expect(forged.status()).toBe(403);
			expect(forged.request().headers().origin).toBe(`http://127.0.0.1:${other.port}`);
			await foreign.goto(`http://127.0.0.1:${other.port}/`);
			// With the token in a custom header the browser must ask first (CORS preflight), and is never allowed.
			const preflighted = await foreign.evaluate(
				async ([u, b, t]) => {
					try {
						await fetch(u as string, {
							method: "POST",
							credentials: "include",
							headers: { "content-type": "application/json", "x-csrf-token": t as string },
							body: b as string,
						});
						return "sent";
					} catch {
						return "blocked";
					}
				},
				[url, body, csrf],
			);
			expect(preflighted).toBe("blocked");
			await foreign.close();
		} finally {
			other.stop(true);
		}

		// Everything right but the Origin (sent from this process, which may set any header): 403.
		const cookie = (await context.cookies(owner.base)).find((c) => c.name === "rt_session");
		expect(cookie?.httpOnly).toBe(true);
		expect(cookie?.sameSite).toBe("Strict");
		const headers = {
			"content-type": "application/json",
			"x-csrf-token": csrf,
			cookie: `rt_session=${cookie?.value}`,
		};
		expect(
			(await fetch(url, { method: "POST", headers: { ...headers, origin: "http://evil.example" }, body }))
				.status,
		).toBe(403);

		// A browser without the cookie gets the login page, and a 401 from the API.
		const stranger = await browser.newContext();
		try {
			const p = await stranger.newPage();
			await p.goto(`${owner.base}/`);
			expect(await p.locator("input[name=token]").count()).toBe(1);
			expect(await p.locator("main .view").count()).toBe(0);
			const statuses = await p.evaluate(
				async ([u, b, t]) => [
					(await fetch("/api/state")).status,
					(
						await fetch(u as string, {
							method: "POST",
							headers: { "content-type": "application/json", "x-csrf-token": t as string },
							body: b as string,
						})
					).status,
				],
				[url, body, csrf],
			);
			expect(statuses).toEqual([401, 401]);
			await shot("login", p);
		} finally {
			await stranger.close();
		}

		expect(watch.problems.splice(seen).every((p) => /status of 40[13]/.test(p))).toBe(true);
		const status = (await mcp("human.approval_status", { approval_id: approval.id })) as {
			approval: { status: string };
		};
		expect(status.approval.status).toBe("requested");
	}, 30_000);

	test("hostile Markdown (script, img onerror, javascript: link, raw HTML with onclick) renders inert", async () => {
		await mcp("message.post", {
			agent_id: "reviewer-1",
			channel: "general",
			body_md: `<img src=x onerror="window.__pwned='msg'"> ${"<script>window.__pwned='msg2'</script>"}`,
		});
		await show("#/tasks");
		await page.getByRole("button", { name: "A task with a hostile body" }).click();
		const body = page.locator(".task-body");
		await body.waitFor();
		await expect(body.textContent()).resolves.toContain("Hostile body");
		const link = body.getByText("click me");
		if ((await link.count()) > 0) await link.click();
		await show("#/messages");
		await page.getByText("Reviewing the login change now.").waitFor();
		await shot("hostile");
		const injected = await page.evaluate(() => {
			const md = [...document.querySelectorAll("main .md")];
			return {
				pwned: window.__pwned ?? null,
				elements: md.flatMap((el) => [
					...el.querySelectorAll("script, img, iframe, object, embed, #injected, [onclick], [onerror]"),
				]).length,
				scriptLinks: md
					.flatMap((el) => [...el.querySelectorAll("a")])
					.filter((a) => !/^(https?:|mailto:|[^:]*$)/i.test(a.getAttribute("href") ?? "")).length,
			};
		});
		await show("#/tasks");
		const task = await page.evaluate(() => {
			const el = document.querySelector(".task-body");
			return {
				elements: el?.querySelectorAll("script, img, iframe, #injected, [onclick], [onerror]").length,
				text: el?.textContent,
			};
		});
		expect(injected).toEqual({ pwned: null, elements: 0, scriptLinks: 0 });
		expect(task.elements).toBe(0);
		expect(watch.dialogs).toEqual([]);
		expect(watch.problems).toEqual([]);
	}, 30_000);

	test("the operator's token signs in too, and Sign out ends that session", async () => {
		const token = readFileSync(join(root, ".roundtable", "operator.token"), "utf8").trim();
		const other = await browser.newContext();
		try {
			const p = await other.newPage();
			await p.goto(`${owner.base}/?token=${encodeURIComponent(token)}`);
			await p.waitForSelector("main .view");
			expect(p.url()).toBe(`${owner.base}/`);
			await p.getByRole("button", { name: "Sign out" }).click();
			await p.waitForSelector("input[name=token]");
			expect(await p.evaluate(async () => (await fetch("/api/state")).status)).toBe(401);
		} finally {
			await other.close();
		}
		// The first session is untouched.
		expect(await page.evaluate(async () => (await fetch("/api/state")).status)).toBe(200);
	}, 30_000);

	test("the sign-in form: a wrong token gets a page that says so; the operator's token typed in signs in, after the one-time link was spent", async () => {
		const token = readFileSync(join(root, ".roundtable", "operator.token"), "utf8").trim();
		const other = await browser.newContext();
		try {
			const p = await other.newPage();
			const problems = await watchPage(p);
			// The one-time link was used by the first page: it opens nothing now.
			await p.goto(owner.login);
			expect(await p.textContent(".login-error")).toContain("a one-time link works once");
			await p.fill("input[name=token]", "not-the-token");
			await p.click("button[type=submit]");
			await p.waitForSelector(".login-error");
			expect(await p.textContent(".login-error")).toBe("That token does not open the dashboard.");
			expect(await p.getAttribute("input[name=token]", "type")).toBe("password");
			await p.fill("input[name=token]", token);
			await p.click("button[type=submit]");
			await p.waitForSelector("main .view");
			expect(p.url()).toBe(`${owner.base}/`);
			expect(await p.evaluate(async () => (await fetch("/api/state")).status)).toBe(200);
			expect(problems.problems.every((m) => /status of 401/.test(m))).toBe(true);
		} finally {
			await other.close();
		}
	}, 30_000);

	test("the sign-in form posted from another origin, or from a sandboxed page (Origin: null), opens nothing and says why", async () => {
		const token = readFileSync(join(root, ".roundtable", "operator.token"), "utf8").trim();
		// The form is submitted once the page is there (not while it loads, which raced the navigation).
		const form = `<form method="post" action="${owner.base}/login"><input name="token" value="${token}"></form>`;
		const evil = Bun.serve({
			hostname: "127.0.0.1",
			port: 0,
			fetch: (req) =>
				new Response(
					new URL(req.url).pathname === "/sandboxed"
						? `<iframe sandbox="allow-forms allow-scripts" srcdoc="${form.replaceAll('"', "&quot;")}"></iframe>`
						: form,
					{ headers: { "content-type": "text/html" } },
				),
		});
		const other = await browser.newContext();
		try {
			for (const where of ["/", "/sandboxed"]) {
				const p = await other.newPage();
				await p.goto(`http://127.0.0.1:${evil.port}${where}`);
				const frame = where === "/" ? p.mainFrame() : (p.frames()[1] ?? p.mainFrame());
				await frame.waitForSelector("form");
				const answered = p.waitForResponse((r) => r.url() === `${owner.base}/login`, { timeout: 10_000 });
				await frame.$eval("form", (f) => (f as unknown as { submit(): void }).submit());
				const r = await answered;
				expect({ where, status: r.status(), type: r.headers()["content-type"] }).toEqual({
					where,
					status: 403,
					type: "text/html; charset=utf-8",
				});
				expect(r.headers()["set-cookie"]).toBeUndefined();
				// The top-level page shows why (a framed one may not be shown at all: frame-ancestors 'none').
				if (where === "/") {
					await p.waitForSelector(".login-error");
					expect(await p.textContent(".login-error")).toBe("Sign in from the dashboard's own page.");
				}
				await p.close();
			}
			expect((await other.cookies()).filter((c) => c.name === "rt_session")).toEqual([]);
		} finally {
			await other.close();
			evil.stop(true);
		}
	}, 30_000);
});
