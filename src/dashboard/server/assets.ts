// The dashboard's files, embedded: imported as text from src/dashboard/web/, so the npm package and
// the `bun build --compile` binary carry them (no CDN, no network, no files read at run time). A new
// file there needs its import and entry here (and, for a .js, a line in src/text-assets.d.ts);
// test/transports/dashboard-assets.test.ts fails while one is left out. Also the login page.

import apiJs from "../web/api.js" with { type: "text" };
import appCss from "../web/app.css" with { type: "text" };
import appJs from "../web/app.js" with { type: "text" };
import decisionsJs from "../web/decisions.js" with { type: "text" };
import diffJs from "../web/diff.js" with { type: "text" };
import domJs from "../web/dom.js" with { type: "text" };
import indexHtml from "../web/index.html" with { type: "text" };
import ledgerJs from "../web/ledger.js" with { type: "text" };
import notesJs from "../web/notes.js" with { type: "text" };
import overviewJs from "../web/overview.js" with { type: "text" };
import partsJs from "../web/parts.js" with { type: "text" };
import proposalJs from "../web/proposal.js" with { type: "text" };
import sessionsJs from "../web/sessions.js" with { type: "text" };
import viewsJs from "../web/views.js" with { type: "text" };
import workJs from "../web/work.js" with { type: "text" };
import { escapeHtml } from "./markdown.ts";

export interface Asset {
	body: string;
	type: string;
	/** A strong validator: the sha256 of the body. */
	etag: string;
}

const asset = (body: string, type: string): Asset => ({
	body,
	type,
	etag: `"${new Bun.CryptoHasher("sha256").update(body).digest("base64url")}"`,
});

/** The app's page, served at `/` to a signed-in browser. bun-types calls an .html import a bundle; as text it is a string. */
export const INDEX = asset(indexHtml as unknown as string, "text/html; charset=utf-8");

const JS = "text/javascript; charset=utf-8";

/** What `/assets/<name>` serves: the style, and the page's ES modules (app.js, the entry, imports the rest). */
export const ASSETS: ReadonlyMap<string, Asset> = new Map([
	["api.js", asset(apiJs, JS)],
	["app.js", asset(appJs, JS)],
	["decisions.js", asset(decisionsJs, JS)],
	["diff.js", asset(diffJs, JS)],
	["dom.js", asset(domJs, JS)],
	["ledger.js", asset(ledgerJs, JS)],
	["notes.js", asset(notesJs, JS)],
	["overview.js", asset(overviewJs, JS)],
	["parts.js", asset(partsJs, JS)],
	["proposal.js", asset(proposalJs, JS)],
	["sessions.js", asset(sessionsJs, JS)],
	["views.js", asset(viewsJs, JS)],
	["work.js", asset(workJs, JS)],
	["app.css", asset(appCss, "text/css; charset=utf-8")],
]);

/** The page a browser without a session gets: a form posting the token to /login. */
export function loginPage(error?: string): string {
	const alert = error === undefined ? "" : `\n<p class="login-error" role="alert">${escapeHtml(error)}</p>`;
	return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Roundtable: sign in</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/assets/app.css">
</head>
<body class="login">
<main class="login">
<h1>Roundtable</h1>
<p>Open the link <code>roundtable start</code> printed (<code>roundtable dashboard: …/?token=…</code>; it works once), or enter the operator's token (<code>.roundtable/operator.token</code>).</p>${alert}
<form method="post" action="/login">
<label for="token">Token</label>
<input id="token" name="token" type="password" autocomplete="off" required autofocus>
<button type="submit">Open the dashboard</button>
</form>
</main>
</body>
</html>
`;
}
