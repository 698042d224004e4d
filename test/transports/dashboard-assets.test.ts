// The dashboard's files, as served: every file under src/dashboard/web/ comes back byte for byte
// (index.html at `/` to a signed-in browser, the rest under /assets/), with its type, a validator
// and no caching surprises; nothing outside that list is served. Independent of what the files say.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { readOperatorToken } from "../../src/config/operator-token.ts";
import { Browser, serveDashboard } from "../_helpers/dashboard-helpers.ts";
import { makeProject, REPO } from "../_helpers/helpers.ts";

const WEB = join(REPO, "src/dashboard/web");
const FILES = readdirSync(WEB, { recursive: true, withFileTypes: true })
	.filter((e) => e.isFile())
	.map((e) => relative(WEB, join(e.parentPath, e.name)));

const TYPES: Record<string, string> = {
	js: "text/javascript; charset=utf-8",
	css: "text/css; charset=utf-8",
	html: "text/html; charset=utf-8",
};

const p = await makeProject();
const { base } = serveDashboard(p);
const browser = new Browser(base);
await browser.login(readOperatorToken(p.root) as string);

describe("the embedded files", () => {
	test("there are the page, its script and its style at least", () => {
		expect(FILES).toEqual(expect.arrayContaining(["index.html", "app.js", "app.css"]));
	});

	test.each(FILES)("%s is served byte for byte, with its type", async (file) => {
		const res = await browser.get(file === "index.html" ? "/" : `/assets/${file}`);
		expect(res.status).toBe(200);
		expect(Buffer.from(await res.arrayBuffer())).toEqual(readFileSync(join(WEB, file)));
		const ext = file.split(".").at(-1) as string;
		expect(res.headers.get("content-type")).toBe(TYPES[ext] ?? "unknown type");
		expect(res.headers.get("x-content-type-options")).toBe("nosniff");
	});

	test("an asset needs no session (the login page uses the style), has an ETag and answers 304 to it", async () => {
		const anon = new Browser(base);
		const res = await anon.get("/assets/app.css");
		expect(res.status).toBe(200);
		expect(res.headers.get("cache-control")).toBe("no-cache");
		const etag = res.headers.get("etag") as string;
		expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
		const again = await anon.get("/assets/app.css", { "if-none-match": etag });
		expect(again.status).toBe(304);
		expect(await again.text()).toBe("");
		expect((await anon.get("/assets/app.css", { "if-none-match": '"other"' })).status).toBe(200);
	});

	test("nothing else is served: unknown names, other folders, escapes, the page itself", async () => {
		for (const path of [
			"/assets/",
			"/assets/nope.js",
			"/assets/index.html",
			"/assets/..%2fweb%2findex.html",
			"/assets/app.js/",
			"/assets/APP.JS",
			"/assets//app.js",
		]) {
			const res = await browser.get(path);
			expect({ path, status: res.status }).toEqual({ path, status: 404 });
			await res.body?.cancel();
		}
		// fetch resolves the dots first: outside /assets/ and the dashboard, the bearer check answers.
		for (const path of ["/assets/../src/main.ts", "/assets/%2e%2e/%2e%2e/package.json"]) {
			const escaped = await browser.get(path);
			expect({ path, status: escaped.status }).toEqual({ path, status: 401 });
			await escaped.body?.cancel();
		}
		const post = await browser.fetch("/assets/app.js", { method: "POST", headers: { origin: base } });
		expect(post.status).toBe(405);
	});

	test("the login page loads nothing from elsewhere and holds no inline script or style", async () => {
		const page = await (await new Browser(base).get("/")).text();
		expect(page).toContain('href="/assets/app.css"');
		expect(page).not.toMatch(/<script|\sstyle=|\son[a-z]+=|https?:\/\//i);
	});
});
