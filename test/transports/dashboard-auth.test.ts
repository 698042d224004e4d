// Who gets into the dashboard, over real HTTP on 127.0.0.1 with a real project behind it: the
// one-time login link (once), the operator's tokens, never a capability or any bearer; the session
// cookie's flags; POSTs only from the dashboard's own origin with the session's CSRF token; the
// Host/Origin guard /mcp has; the security headers on every response; /mcp and /healthz unchanged.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { operatorTokens, readOperatorToken } from "../../src/config/operator-token.ts";
import { DashboardAuth } from "../../src/dashboard/server/auth.ts";
import { CSP } from "../../src/dashboard/server/web.ts";
import { capabilityHash, newCapability } from "../../src/sessions/capability.ts";
import { Browser, serveDashboard } from "../_helpers/dashboard-helpers.ts";
import { makeProject, REPO } from "../_helpers/helpers.ts";
import { withEnv } from "../_helpers/test-run-helpers.ts";

const INDEX = readFileSync(join(REPO, "src/dashboard/web/index.html"), "utf8");
const COOKIE = /^rt_session=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=\/; Max-Age=43200$/;

const p = await makeProject();
const ENV_TOKEN = "operator-token-from-the-environment";
const served = await withEnv({ ROUNDTABLE_MCP_TOKEN: ENV_TOKEN }, async () =>
	serveDashboard(p, { operatorTokens: operatorTokens(p.root) }),
);
const { base, server } = served;
const fileToken = readOperatorToken(p.root) as string;

/** A live capability (its /mcp initialize succeeds): an agent's bearer. */
async function capability(): Promise<string> {
	const raw = newCapability();
	await p.call("session.mint", { agent_id: "reviewer-1", capability_sha256: capabilityHash(raw) });
	const init = await fetch(server.url, {
		method: "POST",
		headers: {
			"content-type": "application/json",
			accept: "application/json, text/event-stream",
			authorization: `Bearer ${raw}`,
		},
		body: JSON.stringify({
			jsonrpc: "2.0",
			id: 1,
			method: "initialize",
			params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "x", version: "1" } },
		}),
	});
	expect(init.status).toBe(200);
	await init.body?.cancel();
	return raw;
}

/** A signed-in browser (with the operator's token). */
async function signedIn(): Promise<Browser> {
	const b = new Browser(base);
	await b.login(fileToken);
	return b;
}

async function requested(): Promise<string> {
	const { task } = (await p.call("task.create", { title: "t", body_md: "b" })) as { task: { id: string } };
	const { approval } = (await p.call("human.request_approval", {
		subject: "Ship it?",
		reason_md: "risky",
		task_id: task.id,
	})) as { approval: { id: string } };
	return approval.id;
}

const statusOf = async (id: string) =>
	((await p.call("human.approval_status", { approval_id: id })) as { approval: { status: string } }).approval
		.status;

describe("logging in", () => {
	test("the one-time link signs in once: a strict HttpOnly cookie, a redirect to / without the token, not cached", async () => {
		const first = new Browser(base);
		const res = await first.get(`/?token=${served.loginToken}`);
		expect(res.status).toBe(303);
		expect(res.headers.get("location")).toBe("/");
		expect(res.headers.get("set-cookie")).toMatch(COOKIE);
		expect(res.headers.get("cache-control")).toBe("no-store");
		expect(res.headers.get("referrer-policy")).toBe("same-origin");
		const app = await first.get("/");
		expect(app.status).toBe(200);
		expect(await app.text()).toBe(INDEX);
		expect((await first.get("/api/state")).status).toBe(200);

		// Spent: another browser opening the same link gets the login page, and no cookie.
		const second = new Browser(base);
		const again = await second.get(`/?token=${served.loginToken}`);
		expect(again.status).toBe(401);
		expect(again.headers.get("set-cookie")).toBeNull();
		expect(again.headers.get("content-type")).toBe("text/html; charset=utf-8");
		const page = await again.text();
		expect(page).toContain('<form method="post" action="/login">');
		expect(page).toContain("works once");
		expect(second.cookie).toBeUndefined();
		// Nor through the form.
		const form = await second.fetch("/login", {
			method: "POST",
			headers: { origin: base, "content-type": "application/x-www-form-urlencoded" },
			body: new URLSearchParams({ token: served.loginToken }).toString(),
		});
		expect(form.status).toBe(401);

		// The first browser, signed in, opening the spent link again just loses the token.
		const back = await first.get(`/?token=${served.loginToken}`);
		expect(back.status).toBe(303);
		expect(back.headers.get("location")).toBe("/");
		expect(back.headers.get("set-cookie")).toBeNull();
	});

	test("the operator's token signs in every time, the file's and the environment's", async () => {
		for (const token of [fileToken, fileToken, ENV_TOKEN]) {
			const b = new Browser(base);
			const res = await b.login(token);
			expect(res.headers.get("set-cookie")).toMatch(COOKIE);
			expect((await b.get("/api/state")).status).toBe(200);
		}
	});

	test("a capability, a wrong token or an empty one never signs in", async () => {
		const cap = await capability();
		for (const token of [cap, "wrong", `${fileToken}x`, fileToken.slice(0, -1), ""]) {
			const b = new Browser(base);
			const link = await b.get(`/?token=${encodeURIComponent(token)}`);
			expect(link.status).toBe(401);
			expect(link.headers.get("set-cookie")).toBeNull();
			const form = await b.fetch("/login", {
				method: "POST",
				headers: { origin: base, "content-type": "application/x-www-form-urlencoded" },
				body: new URLSearchParams({ token }).toString(),
			});
			expect(form.status).toBe(401);
			expect(form.headers.get("set-cookie")).toBeNull();
			expect(await form.text()).toContain("does not open the dashboard");
		}
	});

	test("POST /login takes the form field or JSON, only from the dashboard's own origin", async () => {
		const form = (origin?: string) =>
			new Browser(base).fetch("/login", {
				method: "POST",
				headers: {
					"content-type": "application/x-www-form-urlencoded",
					...(origin !== undefined && { origin }),
				},
				body: `token=${encodeURIComponent(fileToken)}`,
			});
		const ok = await form(base);
		expect(ok.status).toBe(303);
		expect(ok.headers.get("location")).toBe("/");
		expect(ok.headers.get("set-cookie")).toMatch(COOKIE);
		const port = new URL(base).port;
		for (const origin of [
			undefined,
			"null",
			`http://localhost:${Number(port) + 1}`,
			`https://127.0.0.1:${port}`,
		]) {
			const refused = await form(origin);
			expect({ origin, status: refused.status }).toEqual({ origin, status: 403 });
			expect(refused.headers.get("set-cookie")).toBeNull();
		}
		const viaJson = await new Browser(base).fetch("/login", {
			method: "POST",
			headers: { "content-type": "application/json", origin: base },
			body: JSON.stringify({ token: fileToken }),
		});
		expect(viaJson.status).toBe(303);
		expect((await new Browser(base).fetch("/login")).status).toBe(405);
	});

	test("without a session `/` is the login page; a forged cookie is no session; logout ends one", async () => {
		const anon = await new Browser(base).get("/");
		expect(anon.status).toBe(200);
		expect(await anon.text()).toContain('action="/login"');

		const forged = new Browser(base);
		forged.cookie = "A".repeat(43);
		expect(await (await forged.get("/")).text()).toContain('action="/login"');
		expect((await forged.get("/api/state")).status).toBe(401);

		const b = await signedIn();
		const cookie = b.cookie as string;
		const out = await b.post("/api/logout");
		expect(out.status).toBe(204);
		expect(out.headers.get("set-cookie")).toMatch(
			/^rt_session=; HttpOnly; SameSite=Strict; Path=\/; Max-Age=0$/,
		);
		const stale = new Browser(base);
		stale.cookie = cookie;
		expect((await stale.get("/api/state")).status).toBe(401);
	});
});

describe("the API's doors", () => {
	const GETS = [
		"/api/state",
		"/api/proposals/P-x",
		"/api/test-runs/TR-x/log",
		"/api/memory?q=x",
		"/api/events",
		"/api/nope",
	];

	test("every /api endpoint is 401 without the cookie, a bearer instead changes nothing", async () => {
		const cap = await capability();
		for (const authorization of [undefined, `Bearer ${fileToken}`, `Bearer ${ENV_TOKEN}`, `Bearer ${cap}`]) {
			const b = new Browser(base);
			const headers: Record<string, string> = authorization ? { authorization } : {};
			for (const path of GETS) {
				const res = await b.get(path, headers);
				expect({ path, authorization, status: res.status }).toEqual({ path, authorization, status: 401 });
				expect(await res.json()).toMatchObject({ error: { code: "unauthenticated" } });
			}
			for (const path of ["/api/approvals/H-x", "/api/transactions/TX-x/rollback", "/api/logout"]) {
				const res = await b.post(path, { status: "approved" }, { headers, csrf: "x" });
				expect({ path, status: res.status }).toEqual({ path, status: 401 });
			}
		}
	});

	test("a POST from another origin, or without one, is 403 and runs nothing", async () => {
		const b = await signedIn();
		const id = await requested();
		const port = Number(new URL(base).port);
		for (const origin of [
			null,
			"null",
			"http://evil.example",
			`http://localhost:${port + 1}`,
			`http://127.0.0.1:${port + 1}`,
			`https://127.0.0.1:${port}`,
		]) {
			const res = await b.post(`/api/approvals/${id}`, { status: "approved" }, { origin });
			expect({ origin, status: res.status }).toEqual({ origin, status: 403 });
			const rollback = await b.post("/api/transactions/TX-x/rollback", {}, { origin });
			expect(rollback.status).toBe(403);
		}
		expect(await statusOf(id)).toBe("requested");
	});

	test("a POST without the CSRF token, with a wrong one or another session's is 403 and runs nothing", async () => {
		const b = await signedIn();
		const other = await signedIn();
		const id = await requested();
		const mine = (await b.csrf()) as string;
		const theirs = (await other.csrf()) as string;
		expect(theirs).not.toBe(mine);
		expect(await b.csrf()).toBe(mine); // one token for the session's life
		for (const csrf of [null, "", "wrong", theirs, `${mine}x`, mine.toUpperCase()]) {
			const res = await b.post(`/api/approvals/${id}`, { status: "approved" }, { csrf });
			expect({ csrf, status: res.status }).toEqual({ csrf, status: 403 });
			expect(await res.json()).toMatchObject({ error: { code: "permission_denied" } });
		}
		expect(await statusOf(id)).toBe("requested");
		const ok = await b.post(`/api/approvals/${id}`, { status: "approved" }, { csrf: mine });
		expect(ok.status).toBe(200);
		expect(await statusOf(id)).toBe("approved");
	});

	test("the Host and Origin guard of /mcp applies (DNS rebinding), cookie or not", async () => {
		const b = await signedIn();
		const port = new URL(base).port;
		for (const path of ["/", "/login", "/assets/app.js", "/api/state", "/api/events"]) {
			const host = await b.get(path, { host: `evil.example:${port}` });
			expect({ path, status: host.status }).toEqual({ path, status: 403 });
			const origin = await b.get(path, { origin: "http://evil.example" });
			expect({ path, status: origin.status }).toEqual({ path, status: 403 });
			await host.body?.cancel();
			await origin.body?.cancel();
		}
	});

	test("every dashboard response carries the CSP, nosniff and a same-origin referrer policy; /api and the login are not cached", async () => {
		const b = await signedIn();
		const anon = new Browser(base);
		const responses: [string, Response, string | null][] = [
			["login page", await anon.get("/"), "no-store"],
			["refused link", await anon.get("/?token=nope"), "no-store"],
			["login redirect", await new Browser(base).get(`/?token=${fileToken}`), "no-store"],
			["app", await b.get("/"), "no-store"],
			["asset", await b.get("/assets/app.js"), "no-cache"],
			["missing asset", await b.get("/assets/nope.js"), null],
			["state", await b.get("/api/state"), "no-store"],
			["401", await anon.get("/api/state"), "no-store"],
			["404", await b.get("/api/nope"), "no-store"],
			["events", await b.get("/api/events"), "no-store"],
			["403", await b.post("/api/logout", {}, { csrf: "x" }), "no-store"],
		];
		for (const [what, res, cache] of responses) {
			const h = res.headers;
			expect({ what, csp: h.get("content-security-policy") }).toEqual({ what, csp: CSP });
			expect({ what, nosniff: h.get("x-content-type-options") }).toEqual({ what, nosniff: "nosniff" });
			expect({ what, referrer: h.get("referrer-policy") }).toEqual({ what, referrer: "same-origin" });
			expect({ what, frame: h.get("x-frame-options") }).toEqual({ what, frame: "DENY" });
			if (cache) expect({ what, cache: h.get("cache-control") }).toEqual({ what, cache });
			await res.body?.cancel();
		}
		expect(CSP).toBe(
			"default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
		);
	});

	test("mcp.loopback_auth none opens /mcp to local processes, never the dashboard", async () => {
		const open = serveDashboard(await makeProject(), { loopbackAuth: "none" });
		const anon = new Browser(open.base);
		expect((await anon.get("/api/state")).status).toBe(401);
		expect(await (await anon.get("/")).text()).toContain('action="/login"');
		const b = new Browser(open.base);
		await b.login(open.loginToken);
		expect((await b.get("/api/state")).status).toBe(200);
	});

	test("/mcp and /healthz are as before: the dashboard's cookie opens no MCP session", async () => {
		const b = await signedIn();
		const mcp = await b.fetch("/mcp", {
			method: "POST",
			headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
			body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }),
		});
		expect(mcp.status).toBe(401);
		expect(mcp.headers.get("www-authenticate")).toBe('Bearer realm="roundtable"');
		await mcp.body?.cancel();
		const health = await fetch(`${base}/healthz`);
		expect(health.status).toBe(200);
		expect(await health.json()).toEqual({ status: "healthy-idle" });
		const favicon = await fetch(`${base}/favicon.ico`);
		expect(favicon.status).toBe(204);
	});
});

describe("sessions in memory", () => {
	test("expire after their lifetime; at the cap the oldest makes room", () => {
		let now = 1_000_000;
		const auth = new DashboardAuth({ operatorTokens: ["op"], ttlMs: 1000, maxSessions: 2, now: () => now });
		const a = auth.login("op") as string;
		now += 500;
		const b = auth.login("op") as string;
		expect(auth.alive(a) && auth.alive(b)).toBe(true);
		now += 200;
		const c = auth.login("op") as string;
		expect([auth.alive(a), auth.alive(b), auth.alive(c)]).toEqual([false, true, true]);
		now += 799; // b's last live millisecond
		expect([auth.alive(b), auth.alive(c)]).toEqual([true, true]);
		now += 1;
		expect([auth.alive(b), auth.alive(c)]).toEqual([false, true]);
		now += 200;
		expect(auth.alive(c)).toBe(false);
		expect(auth.login("nope")).toBeUndefined();
		expect(auth.login(auth.loginToken)).toBeDefined();
		expect(auth.login(auth.loginToken)).toBeUndefined();
	});

	test("the CSRF token is an HMAC of the session: another session's never passes", () => {
		const auth = new DashboardAuth({ operatorTokens: ["op"] });
		const a = auth.login("op") as string;
		const b = auth.login("op") as string;
		expect(auth.csrfOk(a, auth.csrfToken(a))).toBe(true);
		expect(auth.csrfOk(a, auth.csrfToken(b))).toBe(false);
		expect(auth.csrfOk(a, null)).toBe(false);
		expect(auth.csrfOk(a, "")).toBe(false);
		// Another process (another owner start) makes other tokens for the same id.
		expect(new DashboardAuth({ operatorTokens: ["op"] }).csrfToken(a)).not.toBe(auth.csrfToken(a));
	});
});
