// What the dashboard's browser tests and its bench share: a real owner (`roundtable start` in its
// own process group) and the login URL it prints, headless Debian Chromium through playwright-core,
// and a watch on a page for console errors, uncaught exceptions, CSP violations and dialogs.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";

const MAIN = join(import.meta.dir, "..", "..", "src", "main.ts");

/**
 * The few browser globals the functions these tests run inside the page use: this project's types
 * have no DOM library, so each test file declares them from this, for its own module only.
 */
export interface PageNode {
	id: string;
	tagName: string;
	textContent: string | null;
	blur(): void;
	previousElementSibling: PageNode | null;
	getAttribute(name: string): string | null;
	setAttribute(name: string, value: string): void;
	querySelector(selector: string): PageNode | null;
	querySelectorAll(selector: string): PageNode[] & { length: number };
}
export interface PageGlobals {
	window: Record<string, unknown> & { scrollTo(x: number, y: number): void };
	location: { hash: string };
	getComputedStyle(node: PageNode): { outlineStyle: string };
	document: PageNode & {
		activeElement: PageNode | null;
		addEventListener(
			type: "securitypolicyviolation",
			listener: (e: {
				violatedDirective: string;
				blockedURI: string;
				sourceFile: string;
				lineNumber: number;
			}) => void,
		): void;
	};
}
declare const window: PageGlobals["window"];
declare const document: PageGlobals["document"];

export const CHROMIUM = "/usr/bin/chromium";

/** Why the browser tests cannot run here, or null when they can. */
export const chromiumMissing: string | null = existsSync(CHROMIUM)
	? null
	: `no Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium; .ci/run does)`;

export function launchBrowser(): Promise<Browser> {
	return chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
}

export interface Owner {
	/** http://127.0.0.1:PORT */
	base: string;
	/** The one-time login URL `start` printed. */
	login: string;
	/** SIGTERM to the owner's process group; resolves with its exit code. */
	stop(): Promise<number>;
	/** Everything it wrote on stderr so far. */
	stderr(): string;
}

/**
 * `roundtable start --root root`: waits for its ready line and the `roundtable dashboard: URL` line
 * after it. The owner gets a process group of its own, so stop() also ends the test runs it started.
 */
export async function startOwner(root: string, ms = 30_000): Promise<Owner> {
	const proc = Bun.spawn([process.execPath, MAIN, "start", "--root", root], {
		stdin: "ignore",
		stdout: "pipe",
		stderr: "pipe",
		detached: true,
	});
	let err = "";
	(async () => {
		for await (const chunk of proc.stderr) err += new TextDecoder().decode(chunk);
	})();
	let out = "";
	const reader = proc.stdout.getReader();
	const deadline = Date.now() + ms;
	let login: string | undefined;
	while (login === undefined) {
		const next = await Promise.race([
			reader.read(),
			Bun.sleep(Math.max(0, deadline - Date.now())).then(() => null),
		]);
		if (next === null || next.done) {
			process.kill(-proc.pid, "SIGKILL");
			throw new Error(`no dashboard line from the owner; stdout: ${out}\nstderr: ${err}`);
		}
		out += new TextDecoder().decode(next.value);
		login = /^roundtable dashboard: (\S+)$/m.exec(out)?.[1];
	}
	(async () => {
		for (;;) if ((await reader.read()).done) return; // keep draining
	})();
	return {
		base: new URL(login).origin,
		login,
		stderr: () => err,
		async stop() {
			try {
				process.kill(-proc.pid, "SIGTERM");
			} catch {
				// gone already
			}
			const timer = setTimeout(() => {
				try {
					process.kill(-proc.pid, "SIGKILL");
				} catch {
					// gone
				}
			}, 10_000);
			const code = await proc.exited;
			clearTimeout(timer);
			return code;
		},
	};
}

export interface Watch {
	/** Console errors, uncaught exceptions and CSP violations, in order. */
	problems: string[];
	/** Messages of alert/confirm/prompt dialogs (each dismissed). */
	dialogs: string[];
}

/** Starts recording what must never happen on the dashboard's pages. Call before the first goto. */
export async function watchPage(page: Page): Promise<Watch> {
	const watch: Watch = { problems: [], dialogs: [] };
	page.on("console", (m) => {
		if (m.type() === "error") watch.problems.push(`console: ${m.text()}`);
	});
	page.on("pageerror", (e) => watch.problems.push(`exception: ${e.message}`));
	page.on("dialog", (d) => {
		watch.dialogs.push(d.message());
		d.dismiss().catch(() => {});
	});
	await page.exposeFunction("__reportCsp", (text: string) => watch.problems.push(`csp: ${text}`));
	await page.addInitScript(() => {
		document.addEventListener("securitypolicyviolation", (e) => {
			(window.__reportCsp as (t: string) => void)(
				`${e.violatedDirective} blocked ${e.blockedURI || "inline"} (${e.sourceFile}:${e.lineNumber})`,
			);
		});
	});
	return watch;
}
