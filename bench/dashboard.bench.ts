// The operator's dashboard in headless Chromium beside a real owner over a seeded table: page weight
// (every byte the page loads: the HTML, its assets and the /api/state snapshot), first render
// (navigation start to the first view drawn and painted), and event-to-screen latency (a task
// committed by another process until its row is in the page's DOM). Goals: ≤ 200 KB, ≤ 1 s.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Page } from "playwright-core";
import { initProject } from "../src/init/index.ts";
import { cliHere } from "../test/_helpers/cli.ts";
import { chromiumMissing, launchBrowser, startOwner } from "../test/dashboard/browser.ts";
import { FILES, seedTable } from "../test/dashboard/seed.ts";
import { fmt, median, percentile } from "./lib.ts";

const RENDERS = 10;
const EVENTS = 20;

declare const window: Record<string, unknown> & { requestAnimationFrame(f: () => void): void };
declare const performance: { now(): number };
declare const document: {
	querySelector(s: string): unknown;
	body: { textContent: string | null };
};
declare class MutationObserver {
	constructor(f: () => void);
	observe(target: unknown, options: Record<string, boolean>): void;
	disconnect(): void;
}
declare const location: { hash: string };

/** Milliseconds from navigation start until `main .view` is in the DOM and a frame has painted it. */
async function firstRender(page: Page, url: string): Promise<number> {
	await page.goto(url, { waitUntil: "commit" });
	return page.evaluate(
		() =>
			new Promise<number>((resolve) => {
				const done = () => window.requestAnimationFrame(() => resolve(performance.now()));
				if (document.querySelector("main .view")) return done();
				const seen = new MutationObserver(() => {
					if (!document.querySelector("main .view")) return;
					seen.disconnect();
					done();
				});
				seen.observe(document, { childList: true, subtree: true });
			}),
	);
}

export async function run(): Promise<void> {
	console.log("dashboard in headless Chromium, beside a real owner over a seeded table:");
	if (chromiumMissing) {
		console.log(`  skipped: ${chromiumMissing}`);
		return;
	}
	const root = mkdtempSync(join(tmpdir(), "rt-bench-dashboard-"));
	for (const [path, text] of Object.entries(FILES)) {
		mkdirSync(dirname(join(root, path)), { recursive: true });
		writeFileSync(join(root, path), text);
	}
	for (const args of [
		["init", "-q"],
		["add", "."],
		["commit", "-qm", "start"],
	])
		Bun.spawnSync(["git", "-c", "user.email=b@b", "-c", "user.name=b", ...args], { cwd: root });
	mkdirSync(join(root, ".roundtable"));
	writeFileSync(join(root, ".roundtable", "config.yaml"), "mcp:\n  http_address: 127.0.0.1:0\n");
	await initProject(root);
	const owner = await startOwner(root);
	const mcp = async (tool: string, args: Record<string, unknown>) => {
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
	};
	const browser = await launchBrowser();
	try {
		await seedTable(mcp);
		const signedIn = await browser.newContext({ viewport: { width: 1280, height: 800 } });
		const page = await signedIn.newPage();
		await page.goto(owner.login);
		await page.waitForSelector("main .view");

		// Page weight: every response of a first load (a new context with the session cookie and an
		// empty cache) but the event stream, which never ends. Sizes are the bodies as decoded.
		const fresh = await browser.newContext({ storageState: await signedIn.storageState() });
		const cold = await fresh.newPage();
		const bytes = new Map<string, number>();
		const pending: Promise<void>[] = [];
		cold.on("response", (r) => {
			if (r.url().includes("/api/events")) return;
			pending.push(
				r.body().then(
					(b) => void bytes.set(new URL(r.url()).pathname, b.length),
					() => {},
				),
			);
		});
		await cold.goto(`${owner.base}/`);
		await cold.waitForSelector("main .view");
		await cold.waitForLoadState("networkidle").catch(() => {});
		await Promise.all(pending);
		await fresh.close();
		const state = bytes.get("/api/state") ?? 0;
		const total = [...bytes.values()].reduce((a, b) => a + b, 0);
		console.log(
			`  page weight         ${fmt(total / 1024, 1)} KB (goal ≤ 200 KB): ${[...bytes.keys()].filter((k) => k !== "/api/state").join(", ")} ${fmt((total - state) / 1024, 1)} KB + /api/state ${fmt(state / 1024, 1)} KB`,
		);

		const renders: number[] = [];
		for (let i = 0; i < RENDERS; i++) renders.push(await firstRender(page, `${owner.base}/`));
		renders.sort((a, b) => a - b);
		console.log(
			`  first render        median ${fmt(median(renders))} ms   p95 ${fmt(percentile(renders, 95))} ms   (goal ≤ 1 s; ${RENDERS} loads)`,
		);

		await page.evaluate(() => {
			location.hash = "#/tasks";
		});
		await page.waitForSelector("main .view");
		const latencies: number[] = [];
		for (let i = 0; i < EVENTS; i++) {
			const title = `bench task ${i} ${Date.now()}`;
			await page.evaluate((t) => {
				window.__seen = 0;
				const watch = new MutationObserver(() => {
					if (!document.body.textContent?.includes(t)) return;
					window.__seen = Date.now();
					watch.disconnect();
				});
				watch.observe(document, { childList: true, subtree: true, characterData: true });
			}, title);
			const out = (await mcp("task.create", { title, body_md: "x" })) as { task: { created_at: string } };
			const seen = await page.waitForFunction(() => window.__seen, undefined, { timeout: 10_000 });
			const shownAt = (await seen.jsonValue()) as number;
			latencies.push(shownAt - Date.parse(out.task.created_at));
		}
		latencies.sort((a, b) => a - b);
		console.log(
			`  event to screen     median ${fmt(median(latencies))} ms   p95 ${fmt(percentile(latencies, 95))} ms   (goal ≤ 1 s; ${EVENTS} tasks, from commit to row)`,
		);
	} finally {
		await browser.close();
		await owner.stop();
		rmSync(root, { recursive: true, force: true });
	}
}

if (import.meta.main) await run();
