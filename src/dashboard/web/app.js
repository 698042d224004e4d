// The operator's dashboard, in one plain script (the owner embeds and serves app.js, app.css and
// index.html as they are: no bundler, no framework). Sections, bottom-up: the API; the DOM toolkit
// (text only through textContent, the server's rendered Markdown re-checked before it is placed);
// the diff; the decisions; the views; one proposal's detail; and the app, which loads /api/state,
// follows /api/events and redraws what changed.

// =================================================================================================
// The owner's API: JSON reads, the two decisions, logs, the event stream
// =================================================================================================
// How the dashboard talks to the owner: JSON reads, the two decisions (POST with the session's
// CSRF token; the browser adds the cookie and the Origin header), test logs as text, and the live
// event stream (EventSource, which reconnects by itself and resumes with Last-Event-ID).
let csrfToken = "";

/** The CSRF token /api/state hands out, bound to this session; every POST carries it. */
function setCsrf(token) {
	csrfToken = token ?? "";
}

/** An error the owner returned ({error:{code,message,details}}), or a network failure. */
class ApiError extends Error {
	constructor(status, code, message, details) {
		super(message);
		this.status = status;
		this.code = code;
		this.details = details;
	}
}

async function failure(res) {
	let body = null;
	try {
		body = await res.json();
	} catch {
		// not JSON: the status line says enough
	}
	const e = body?.error ?? {};
	return new ApiError(res.status, e.code ?? `http_${res.status}`, e.message ?? res.statusText, e.details);
}

async function send(path, init) {
	let res;
	try {
		res = await fetch(path, { credentials: "same-origin", ...init });
	} catch (err) {
		throw new ApiError(0, "network", `the owner did not answer (${err.message})`);
	}
	if (!res.ok) throw await failure(res);
	return res;
}

async function getJson(path) {
	return (await send(path, { headers: { accept: "application/json" } })).json();
}

/** A page of a test run's log from byte `offset`, and where the next page starts (null: the end). */
async function getLog(id, offset) {
	const path = `/api/test-runs/${encodeURIComponent(id)}/log?offset=${offset}`;
	const res = await send(path, { headers: { accept: "text/plain" } });
	const next = res.headers.get("x-log-next-offset");
	return { text: await res.text(), next: next ? Number(next) : null };
}

async function postJson(path, body) {
	const headers = { "content-type": "application/json", "x-csrf-token": csrfToken };
	const res = await send(path, { method: "POST", headers, body: JSON.stringify(body) });
	return res.status === 204 ? null : res.json();
}

/**
 * Follows /api/events from `after` (the snapshot's last event id, so nothing falls between the two;
 * null: from now).
 * `onEvent(event)` for each table event; `onStatus("connecting" | "live" | "reconnecting" |
 * "offline")`. EventSource retries a dropped connection itself; when it gives up (the owner
 * stopped, or refused the stream), this opens a new one after a pause, from the last id seen.
 */
function follow(after, { onEvent, onStatus }) {
	let lastId = after === null ? null : Number(after) || 0;
	let source = null;
	let retry = 0;
	const open = () => {
		onStatus("connecting");
		source = new EventSource(lastId === null ? "/api/events" : `/api/events?after=${lastId}`);
		source.addEventListener("open", () => {
			retry = 0;
			onStatus("live");
		});
		source.addEventListener("table", (message) => {
			lastId = Number(message.lastEventId) || lastId;
			let event = null;
			try {
				event = JSON.parse(message.data);
			} catch {
				return;
			}
			onEvent(event);
		});
		source.addEventListener("error", () => {
			if (source.readyState === EventSource.CONNECTING) return onStatus("reconnecting");
			source.close();
			onStatus("offline");
			retry = Math.min(retry + 1, 6);
			setTimeout(open, 500 * 2 ** retry);
		});
	};
	open();
	return { lastId: () => lastId };
}

// =================================================================================================
// DOM toolkit: elements, the server's Markdown re-checked, tables, pills, times, ids
// =================================================================================================
// The dashboard's DOM toolkit: `h` builds elements (text only through textContent, handlers through
// addEventListener, so no data ever becomes markup), `insertHtml` places the server's rendered
// Markdown after re-checking it, and the small pieces every view shares (tables that fold into
// cards on a narrow window, status pills, times, ids as links).
/**
 * An element: `h("a", { href: "#/x", class: "c", onclick: fn }, "text", child)`. Keys starting with
 * "on" become listeners; `text` sets textContent; false, null and undefined attributes and children
 * are left out; everything else is an attribute (never from data: the names are this code's).
 */
function h(tag, attrs = {}, ...children) {
	const el = document.createElement(tag);
	for (const [key, value] of Object.entries(attrs)) {
		if (value === false || value === null || value === undefined) continue;
		if (key.startsWith("on")) el.addEventListener(key.slice(2), value);
		else if (key === "text") el.textContent = String(value);
		else if (key === "value") el.value = value;
		else if (key === "checked") el.checked = Boolean(value);
		else el.setAttribute(key, value === true ? "" : String(value));
	}
	append(el, children);
	return el;
}

function append(el, children) {
	for (const child of children) {
		if (child === null || child === undefined || child === false) continue;
		if (Array.isArray(child)) append(el, child);
		else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
	}
}

// What may stay in the server's rendered Markdown. The server already escapes raw HTML and drops
// unsafe URLs; this second look keeps a mistake there from becoming script here.
const ALLOWED = new Set(
	"a abbr b blockquote br code del details div em h1 h2 h3 h4 h5 h6 hr i img input kbd li ol p pre s section small span strong sub summary sup table tbody td tfoot th thead tr ul".split(
		" ",
	),
);
const DROP = new Set(
	"script style iframe object embed link meta base form template noscript svg math".split(" "),
);
const ATTRS = new Set(
	"href src alt title class colspan rowspan align start type checked disabled".split(" "),
);

/** True for http(s), mailto, and relative URLs (no scheme): the only links rendered Markdown may hold. */
function safeUrl(url) {
	const trimmed = url.trim();
	const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(trimmed);
	return scheme === null ? !trimmed.startsWith("//") : /^(https?|mailto)$/i.test(scheme[1]);
}

/** Checks one element (and, through the caller's walk, its subtree) against the lists above. */
function cleanElement(el) {
	const tag = el.localName;
	if (DROP.has(tag)) return el.remove();
	if (!ALLOWED.has(tag)) return el.replaceWith(...el.childNodes);
	for (const { name } of [...el.attributes]) {
		if (!ATTRS.has(name) || (name === "class" && tag !== "code")) el.removeAttribute(name);
	}
	for (const name of ["href", "src"]) {
		const url = el.getAttribute(name);
		if (url !== null && !safeUrl(url)) el.removeAttribute(name);
	}
	if (tag === "a" && !el.hasAttribute("href")) return el.replaceWith(...el.childNodes); // its URL was unsafe
	if (tag === "a") el.setAttribute("rel", "noopener noreferrer");
	if (tag === "input" && el.getAttribute("type") !== "checkbox") el.remove();
	if (tag === "input") el.setAttribute("disabled", "");
	// No image loads: a repository path means nothing to this origin and another origin is outside
	// the page's CSP, so an image becomes its alt text, linked when its URL is a web address.
	if (tag === "img") {
		const src = el.getAttribute("src") ?? "";
		const label = `[image: ${el.getAttribute("alt") || src || "?"}]`;
		el.replaceWith(/^https?:/i.test(src) ? h("a", { href: src, rel: "noopener noreferrer" }, label) : label);
	}
}

/**
 * Puts the server's rendered (already inert) Markdown into `el`. It is parsed in a <template>,
 * where nothing runs or loads, checked element by element, and only then adopted.
 */
function insertHtml(el, html) {
	const tpl = document.createElement("template");
	tpl.innerHTML = html;
	for (const node of [...tpl.content.querySelectorAll("*")])
		if (tpl.content.contains(node)) cleanElement(node);
	el.append(tpl.content);
	return el;
}

/** A Markdown field: the server's `<field>_html` when it sent one, else the source as plain text. */
function markdown(record, field, cls = "md") {
	const html = record[`${field}_html`];
	if (typeof html === "string") return insertHtml(h("div", { class: cls }), html);
	return h("div", { class: `${cls} md-plain`, text: record[field] ?? "" });
}

/** Status words as a pill whose colour says good, waiting, bad or neutral. */
const TONES = {
	ok: "active approved passed applied answered done accepted completed approve approve_with_notes scheduled started enabled live",
	warn: "requested pending in_review review in_progress suspended running revise open proposed needs_changes blocked expiring",
	bad: "rejected failed timed_out error veto reject revoked expired cancelled interrupted rolled_back disabled",
};
function pill(word, tone) {
	const t = tone ?? Object.keys(TONES).find((k) => TONES[k].split(" ").includes(word)) ?? "none";
	return h("span", { class: `pill pill-${t}`, text: String(word).replaceAll("_", " ") });
}

/** "14:03:22" today, "Dec 2 14:03" otherwise; the full time as a tooltip. */
function time(iso) {
	if (!iso) return h("span", { class: "muted", text: "—" });
	const d = new Date(iso);
	const today = new Date().toDateString() === d.toDateString();
	const text = today
		? d.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" })
		: d.toLocaleString([], { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
	return h("time", { datetime: iso, title: d.toLocaleString(), text });
}

/**
 * Ids are a prefix and a UUIDv7 (`P-01a2…-…2363f8`), whose head is a timestamp shared by ids made
 * close together: show the prefix and the tail, and keep the whole id as the tooltip.
 */
function shortId(id) {
	const m = /^([A-Za-z]+-)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}([0-9a-f]{8})$/.exec(id);
	return m ? `${m[1]}…${m[2]}` : id;
}

/** An id (short, the whole one as tooltip), linked to its view (`#/proposals/P-1`) when `route` is given. */
function idLink(id, route) {
	if (!id) return h("span", { class: "muted", text: "—" });
	const attrs = { class: "id", title: id, text: shortId(id) };
	return route ? h("a", { href: `#/${route}/${encodeURIComponent(id)}`, ...attrs }) : h("span", attrs);
}

/**
 * A table: `columns` are [label, (row) => cell, className?]. `detail(row)` may give a node shown in
 * a full-width row under it (an expanded body, a confirm form). On a narrow window CSS folds each
 * row into a card, labelling each cell from its data-label.
 */
function table(columns, rows, { empty = "Nothing here.", rowClass, detail, label } = {}) {
	if (rows.length === 0) return h("p", { class: "empty", text: empty });
	const body = [];
	for (const row of rows) {
		body.push(
			h(
				"tr",
				{ class: rowClass?.(row) },
				columns.map(([name, cell, cls]) => h("td", { "data-label": name, class: cls }, cell(row))),
			),
		);
		const more = detail?.(row);
		if (more)
			body.push(
				h("tr", { class: "detail" }, h("td", { colspan: columns.length, class: "detail-cell" }, more)),
			);
	}
	return h(
		"div",
		{ class: "table-wrap" },
		h(
			"table",
			{ class: "grid", "aria-label": label },
			h(
				"thead",
				{},
				h(
					"tr",
					{},
					columns.map(([name, , cls]) => h("th", { scope: "col", class: cls, text: name })),
				),
			),
			h("tbody", {}, body),
		),
	);
}

/** A titled panel with an optional count and actions beside the title. */
function section(title, body, { count, id, actions } = {}) {
	return h(
		"section",
		{ class: "panel", "aria-labelledby": id ? `${id}-h` : null },
		h(
			"header",
			{ class: "panel-head" },
			h(
				"h2",
				{ id: id ? `${id}-h` : null },
				title,
				count === undefined ? null : h("span", { class: "count", text: count }),
			),
			actions,
		),
		body,
	);
}

// =================================================================================================
// Pieces the list views share
// =================================================================================================
// Small pieces the list views share: status groups, newest-first order, a row's show/hide button
// (its state kept in ui.open so a live redraw keeps it), and an agent's name.
const count = (list, test) => list.filter(test).length;
const OPEN_WORK = new Set(["open", "in_progress", "blocked"]);
const OPEN_PROPOSAL = new Set(["pending", "in_review"]);
const byNewest = (a, b) => ((a.updated_at ?? a.created_at) < (b.updated_at ?? b.created_at) ? 1 : -1);

/** A button that shows or hides a row's detail; its state lives in ui.open under `key`. */
function toggle(app, key, label, cls = "linkish") {
	const open = app.ui.open.has(key);
	return h("button", {
		type: "button",
		class: cls,
		"aria-expanded": open ? "true" : "false",
		"data-key": key,
		onclick: () => {
			if (open) app.ui.open.delete(key);
			else app.ui.open.add(key);
			app.rerender();
		},
		text: label,
	});
}

const who = (id) => (id ? h("span", { class: "who", text: id }) : h("span", { class: "muted", text: "—" }));

// =================================================================================================
// The diff: parsed, drawn unified or side by side, findings on their lines
// =================================================================================================
// A proposal's patch as people read it: the unified diff text parsed into files, hunks and numbered
// lines, drawn unified or side by side, with security findings placed under the lines they name
// (path and new-file line number). Findings on lines the diff does not show are listed per file.
/** Files of a unified (git-style or plain) diff: {path, oldPath, newPath, meta[], binary, hunks[]}. */
function parseDiff(text) {
	const files = [];
	let file = null;
	let hunk = null;
	let oldNo = 0;
	let newNo = 0;
	const start = (oldPath = null, newPath = null) => {
		file = { path: newPath ?? oldPath ?? "?", oldPath, newPath, meta: [], binary: false, hunks: [] };
		files.push(file);
		hunk = null;
	};
	const strip = (p) => (p === "/dev/null" ? null : p.replace(/^[ab]\//, "").replace(/\t.*$/, ""));
	for (const line of text.split("\n")) {
		// Inside a hunk whose counts are not used up every line is the hunk's, "--- x" included.
		if (hunk && (hunk.oldLeft > 0 || hunk.newLeft > 0)) {
			const kind = { "+": "add", "-": "del", "\\": "note" }[line[0]] ?? "ctx";
			const old = kind === "del" || kind === "ctx" ? oldNo++ : null;
			const now = kind === "add" || kind === "ctx" ? newNo++ : null;
			if (old !== null) hunk.oldLeft--;
			if (now !== null) hunk.newLeft--;
			hunk.lines.push({ kind, text: kind === "note" ? line : line.slice(1), old, new: now });
			continue;
		}
		if (hunk && line.startsWith("\\")) {
			hunk.lines.push({ kind: "note", text: line, old: null, new: null });
			continue;
		}
		hunk = null;
		const git = /^diff --git a\/(.*) b\/(.*)$/.exec(line);
		const at = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
		if (git) start(git[1], git[2]);
		else if (line.startsWith("--- ")) {
			if (!file || file.hunks.length > 0 || file.sawOld) start();
			file.oldPath = strip(line.slice(4));
			file.sawOld = true;
		} else if (line.startsWith("+++ ") && file) {
			file.newPath = strip(line.slice(4));
			file.path = file.newPath ?? file.oldPath ?? file.path;
		} else if (at && file) {
			oldNo = Number(at[1]);
			newNo = Number(at[3]);
			hunk = { header: line, oldLeft: Number(at[2] ?? 1), newLeft: Number(at[4] ?? 1), lines: [] };
			file.hunks.push(hunk);
		} else if (line !== "") {
			if (!file) start();
			if (/^GIT binary patch|^Binary files /.test(line)) file.binary = true;
			file.meta.push(line);
		}
	}
	return files;
}

const stats = (file) => {
	let add = 0;
	let del = 0;
	for (const hk of file.hunks)
		for (const l of hk.lines) {
			if (l.kind === "add") add++;
			if (l.kind === "del") del++;
		}
	return { add, del };
};

function findingRow(findings, colspan) {
	return h(
		"tr",
		{ class: "finding-row" },
		h(
			"td",
			{ colspan, class: "finding-cell" },
			findings.map((f) =>
				h(
					"div",
					{ class: `finding sev-${f.severity}` },
					pill(f.severity, f.severity === "low" ? "none" : f.severity === "medium" ? "warn" : "bad"),
					h("code", { class: "rule", text: f.rule ?? f.code ?? "" }),
					h("span", { text: f.message }),
				),
			),
		),
	);
}

const num = (n) => h("td", { class: "ln", text: n ?? "" });
const code = (kind, text) =>
	h(
		"td",
		{ class: `code ${kind}` },
		h("span", { class: "sign", "aria-hidden": "true", text: sign(kind) }),
		text,
	);
const sign = (kind) => ({ add: "+", del: "-", ctx: " ", note: "" })[kind] ?? " ";

function unifiedRows(file, at) {
	const rows = [];
	for (const hk of file.hunks) {
		rows.push(h("tr", { class: "hunk" }, h("td", { colspan: 3, class: "hunk-cell", text: hk.header })));
		for (const l of hk.lines) {
			rows.push(h("tr", { class: `line ${l.kind}` }, num(l.old), num(l.new), code(l.kind, l.text)));
			const found = l.new !== null ? at(l.new) : null;
			if (found) rows.push(findingRow(found, 3));
		}
	}
	return rows;
}

function splitRows(file, at) {
	const rows = [];
	const half = (l, side) =>
		l
			? [num(side === "old" ? l.old : l.new), code(l.kind, l.text)]
			: [num(null), h("td", { class: "code empty" })];
	const push = (left, right) => {
		rows.push(h("tr", { class: "line" }, half(left, "old"), half(right, "new")));
		const found = right && right.new !== null ? at(right.new) : null;
		if (found) rows.push(findingRow(found, 4));
	};
	for (const hk of file.hunks) {
		rows.push(h("tr", { class: "hunk" }, h("td", { colspan: 4, class: "hunk-cell", text: hk.header })));
		let dels = [];
		let adds = [];
		const flush = () => {
			for (let i = 0; i < Math.max(dels.length, adds.length); i++) push(dels[i], adds[i]);
			dels = [];
			adds = [];
		};
		for (const l of hk.lines) {
			if (l.kind === "del") {
				if (adds.length > 0) flush();
				dels.push(l);
			} else if (l.kind === "add") adds.push(l);
			else {
				flush();
				if (l.kind === "ctx") push(l, l);
				else
					rows.push(
						h("tr", { class: "line note" }, h("td", { colspan: 4, class: "note-cell", text: l.text })),
					);
			}
		}
		flush();
	}
	return rows;
}

/**
 * The diff as <details> per file. `findings` are one revision's security findings; `open(path)`
 * says whether a file starts expanded, `onToggle(path, open)` remembers the reader's choice.
 */
function renderDiff(files, { mode = "unified", findings = [], open, onToggle }) {
	if (files.length === 0) return h("p", { class: "empty", text: "This revision has no diff text." });
	return h(
		"div",
		{ class: "diff" },
		files.map((file) => {
			const here = findings.filter((f) => f.path === file.path || f.path === file.oldPath);
			const byLine = new Map();
			const shown = new Set();
			for (const hk of file.hunks) for (const l of hk.lines) if (l.new !== null) shown.add(l.new);
			for (const f of here) if (shown.has(f.line)) byLine.set(f.line, [...(byLine.get(f.line) ?? []), f]);
			const elsewhere = here.filter((f) => !shown.has(f.line));
			const { add, del } = stats(file);
			const rows =
				mode === "split" ? splitRows(file, (n) => byLine.get(n)) : unifiedRows(file, (n) => byLine.get(n));
			const details = h(
				"details",
				{ class: "diff-file", open: open(file.path) },
				h(
					"summary",
					{},
					h("span", { class: "path", text: file.path }),
					file.oldPath && file.newPath && file.oldPath !== file.newPath
						? h("span", { class: "muted", text: ` ← ${file.oldPath}` })
						: null,
					file.oldPath === null ? pill("new", "ok") : null,
					file.newPath === null ? pill("deleted", "bad") : null,
					h("span", { class: "stat add", text: `+${add}` }),
					h("span", { class: "stat del", text: `−${del}` }),
					here.length > 0 ? pill(`${here.length} finding${here.length === 1 ? "" : "s"}`, "bad") : null,
				),
				file.binary ? h("p", { class: "muted pad", text: "Binary change (not shown)." }) : null,
				elsewhere.length > 0
					? h(
							"table",
							{ class: "diff-table" },
							h(
								"tbody",
								{},
								h(
									"tr",
									{ class: "hunk" },
									h("td", { class: "hunk-cell", text: "Findings on lines this diff does not show" }),
								),
								findingRow(elsewhere, 1),
							),
						)
					: null,
				rows.length > 0
					? h(
							"div",
							{ class: "diff-scroll" },
							h("table", { class: `diff-table ${mode}` }, h("tbody", {}, rows)),
						)
					: null,
			);
			details.addEventListener("toggle", () => onToggle(file.path, details.open));
			return details;
		}),
	);
}

// =================================================================================================
// The decisions: approve / reject and roll back, each with a confirm step
// =================================================================================================
// The operator's two decisions on the page: approve or reject a human-approval request (with the
// override flag where it applies) and roll back an applied transaction. Each is two steps: a
// button opens a confirm form saying exactly what will happen, and only its submit posts.
function flash(app, id) {
	const f = app.ui.flash[id];
	if (!f) return null;
	return h("p", {
		class: `flash ${f.ok ? "flash-ok" : "flash-bad"}`,
		role: f.ok ? "status" : "alert",
		text: f.text,
	});
}

async function submit(app, id, path, body, done) {
	app.ui.busy = id;
	app.rerender();
	try {
		const result = await postJson(path, body);
		app.ui.flash[id] = { ok: true, text: done(result) };
		app.ui.confirm = null;
		app.focusKey = `decide:${id}`;
	} catch (err) {
		const text = err instanceof ApiError ? `${err.code}: ${err.message}` : String(err);
		app.ui.flash[id] = { ok: false, text: `Refused — ${text}` };
	} finally {
		app.ui.busy = null;
		app.rerender();
		app.refresh();
	}
}

/** A random key: a decision sent twice (a double click, a retry) is made once. */
function idempotencyKey() {
	return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Opens the confirm step for the record `id` at `revision`, the one the operator is looking at: the
 * decision carries it as expected_revision, so a record that changed meanwhile is refused, not decided.
 */
function openConfirm(app, kind, id, revision) {
	app.ui.confirm = { kind, id, revision, key: idempotencyKey() };
	app.ui.note = "";
	app.ui.override = false;
	app.ui.force = false;
	delete app.ui.flash[id];
	app.focusKey = `confirm:${id}`;
	app.rerender();
}

/** A warning when the record changed after its confirm step opened (the decision will be refused). */
function changedSince(ui, record) {
	if (record.revision === ui.confirm?.revision) return null;
	return h("p", {
		class: "flash flash-bad",
		role: "alert",
		text: "This changed since you opened this form; the owner will refuse the decision. Cancel and look again.",
	});
}

function cancel(app, id) {
	app.ui.confirm = null;
	app.focusKey = `decide:${id}`;
	app.rerender();
}

/** Approve / Reject buttons for one approval request, or its open confirm form. */
function approvalActions(app, approval) {
	const { ui } = app;
	const id = approval.id;
	const open = ui.confirm?.id === id ? ui.confirm.kind : null;
	if (open === "approved" || open === "rejected") {
		const approving = open === "approved";
		const what = approval.proposal_id
			? `${approval.proposal_id}${approval.patch_revision ? ` at revision ${approval.patch_revision}` : ""}`
			: approval.task_id
				? `task ${approval.task_id}`
				: "this request";
		return h(
			"form",
			{
				class: `confirm ${approving ? "confirm-ok" : "confirm-bad"}`,
				"aria-label": `${approving ? "Approve" : "Reject"} ${id}`,
				onsubmit: (e) => {
					e.preventDefault();
					const body = {
						status: open,
						expected_revision: ui.confirm.revision,
						idempotency_key: ui.confirm.key,
					};
					if (ui.note.trim() !== "") body.decision_md = ui.note;
					if (approving && ui.override) body.override_policy = true;
					submit(app, id, `/api/approvals/${encodeURIComponent(id)}`, body, (r) => {
						const a = r?.approval ?? {};
						return `${id} ${a.status ?? open}${a.override_policy ? " (policy overridden)" : ""}.`;
					});
				},
			},
			h("p", { class: "confirm-q", text: `${approving ? "Approve" : "Reject"} ${what} as the operator?` }),
			changedSince(ui, approval),
			h(
				"label",
				{ class: "field" },
				h("span", { text: "Decision note (optional, Markdown)" }),
				h("textarea", {
					rows: 2,
					"data-key": `confirm:${id}`,
					value: ui.note,
					oninput: (e) => {
						ui.note = e.target.value;
					},
				}),
			),
			approving && approval.proposal_id
				? h(
						"label",
						{ class: "check" },
						h("input", {
							type: "checkbox",
							"data-key": `override:${id}`,
							checked: ui.override,
							onchange: (e) => {
								ui.override = e.target.checked;
							},
						}),
						h("span", { text: "Override policy: also overrule a security veto on this revision" }),
					)
				: null,
			h(
				"div",
				{ class: "actions" },
				h("button", {
					type: "submit",
					class: approving ? "btn btn-ok" : "btn btn-bad",
					"data-key": `submit:${id}`,
					disabled: ui.busy === id,
					text: ui.busy === id ? "Sending…" : approving ? "Confirm approval" : "Confirm rejection",
				}),
				h("button", { type: "button", class: "btn", onclick: () => cancel(app, id), text: "Cancel" }),
			),
			flash(app, id),
		);
	}
	const buttons = [];
	if (approval.status !== "approved")
		buttons.push(
			h("button", {
				type: "button",
				class: "btn btn-ok",
				"data-key": `decide:${id}`,
				onclick: () => openConfirm(app, "approved", id, approval.revision),
				text: "Approve…",
			}),
		);
	if (approval.status !== "rejected")
		buttons.push(
			h("button", {
				type: "button",
				class: "btn btn-bad",
				"data-key": approval.status === "approved" ? `decide:${id}` : `reject:${id}`,
				onclick: () => openConfirm(app, "rejected", id, approval.revision),
				text: approval.status === "approved" ? "Revoke (reject)…" : "Reject…",
			}),
		);
	return h("div", { class: "actions" }, buttons, flash(app, id));
}

/** A Roll back button for an applied transaction (or its confirm form); nothing for the rest. */
function rollbackAction(app, tx) {
	const { ui } = app;
	const id = tx.id;
	if (tx.kind !== "apply" || tx.status !== "applied") return flash(app, id);
	if (ui.confirm?.id === id && ui.confirm.kind === "rollback") {
		const files = tx.files?.length ?? 0;
		return h(
			"form",
			{
				class: "confirm confirm-bad",
				"aria-label": `Roll back ${id}`,
				onsubmit: (e) => {
					e.preventDefault();
					const body = { expected_revision: ui.confirm.revision, idempotency_key: ui.confirm.key };
					if (ui.note.trim() !== "") body.reason_md = ui.note;
					if (ui.force) body.force = true;
					submit(app, id, `/api/transactions/${encodeURIComponent(id)}/rollback`, body, (r) => {
						const back = r?.transaction?.id ?? r?.rollback?.id;
						return `${id} rolled back${back ? ` by ${back}` : ""}.`;
					});
				},
			},
			h("p", {
				class: "confirm-q",
				text: `Roll back ${id} (${tx.proposal_id}, ${files} file${files === 1 ? "" : "s"})? The files get back their bytes and modes from before it; refused if they changed since.`,
			}),
			changedSince(ui, tx),
			h(
				"label",
				{ class: "field" },
				h("span", { text: "Reason (optional, Markdown)" }),
				h("textarea", {
					rows: 2,
					"data-key": `confirm:${id}`,
					value: ui.note,
					oninput: (e) => {
						ui.note = e.target.value;
					},
				}),
			),
			h(
				"label",
				{ class: "check" },
				h("input", {
					type: "checkbox",
					"data-key": `force:${id}`,
					checked: ui.force,
					onchange: (e) => {
						ui.force = e.target.checked;
					},
				}),
				h("span", { text: "Force: overwrite edits made to these files since" }),
			),
			h(
				"div",
				{ class: "actions" },
				h("button", {
					type: "submit",
					class: "btn btn-bad",
					"data-key": `submit:${id}`,
					disabled: ui.busy === id,
					text: ui.busy === id ? "Rolling back…" : "Confirm roll back",
				}),
				h("button", { type: "button", class: "btn", onclick: () => cancel(app, id), text: "Cancel" }),
			),
			flash(app, id),
		);
	}
	return h(
		"div",
		{ class: "actions" },
		h("button", {
			type: "button",
			class: "btn",
			"data-key": `decide:${id}`,
			onclick: () => openConfirm(app, "rollback", id, tx.revision),
			text: "Roll back…",
		}),
		flash(app, id),
	);
}

// =================================================================================================
// View: overview
// =================================================================================================
// The overview: counts that link to their views, runs and their convergence, what waits for the
// operator (approvals, questions to the operator, suspended and expiring claims), the turn queue and
// the agents.
// ---- overview -----------------------------------------------------------------------------------

function stat(label, value, href, tone) {
	return h(
		"a",
		{ class: `stat-card${tone && value > 0 ? ` tone-${tone}` : ""}`, href },
		h("strong", { text: value }),
		h("span", { text: label }),
	);
}

/** The start of a Markdown source as one plain line (for a link's text; never rendered). */
const excerpt = (md, n) => {
	const line = String(md ?? "")
		.replace(/[*_`#>[\]]/g, "")
		.replace(/\s+/g, " ")
		.trim();
	return line.length > n ? `${line.slice(0, n - 1)}…` : line;
};

function overview(app) {
	const s = app.state;
	const waiting = s.approvals.filter((a) => a.status === "requested");
	const expiring = s.claims.filter((c) => c.expiring_soon && c.status === "active");
	const suspended = s.claims.filter((c) => c.status === "suspended");
	const toOperator = s.questions.filter((q) => q.assignee_id === "operator");
	const attention = [
		...waiting.map((a) =>
			h(
				"li",
				{},
				pill("approval", "warn"),
				" ",
				h("a", { href: "#/approvals", text: a.subject }),
				" ",
				idLink(a.proposal_id, "proposals"),
			),
		),
		...toOperator.map((q) =>
			h(
				"li",
				{},
				pill("question", "warn"),
				" ",
				who(q.requester_id),
				" asks: ",
				h("a", { href: "#/messages", title: q.id, text: excerpt(q.question_md, 90) }),
			),
		),
		...suspended.map((c) =>
			h(
				"li",
				{},
				pill("suspended"),
				" ",
				h("a", { href: "#/claims", text: c.path ?? c.resource_id }),
				" held by ",
				who(c.agent_id),
			),
		),
		...expiring.map((c) =>
			h(
				"li",
				{},
				pill("expiring", "warn"),
				" ",
				h("a", { href: "#/claims", text: c.path ?? c.resource_id }),
				" held by ",
				who(c.agent_id),
			),
		),
	];
	return h(
		"div",
		{ class: "view" },
		h(
			"div",
			{ class: "stats" },
			stat(
				"active runs",
				count(s.runs, (r) => r.status === "active"),
				"#/",
			),
			stat(
				"open tasks",
				count(s.tasks, (t) => OPEN_WORK.has(t.status)),
				"#/tasks",
			),
			stat(
				"proposals in review",
				count(s.proposals, (p) => OPEN_PROPOSAL.has(p.status)),
				"#/proposals",
			),
			stat("awaiting approval", waiting.length, "#/approvals", "warn"),
			stat("open questions", s.questions.length, "#/messages"),
			stat(
				"live claims",
				count(s.claims, (c) => c.status === "active" || c.status === "suspended"),
				"#/claims",
			),
		),
		section(
			"Runs and convergence",
			table(
				[
					["Run", (r) => idLink(r.id)],
					["Goal", (r) => r.goal, "wide"],
					["Status", (r) => pill(r.status)],
					["Ticks", (r) => r.ticks, "num"],
					["Last tick", (r) => time(r.last_tick_at)],
					["Convergence", (r) => r.convergence ?? h("span", { class: "muted", text: "not checked yet" })],
				],
				[...s.runs].sort(byNewest),
				{ empty: "No runs. `roundtable run --goal …` opens one.", label: "Runs" },
			),
			{ count: s.runs.length, id: "runs" },
		),
		h(
			"div",
			{ class: "columns" },
			section(
				"Needs you",
				attention.length > 0
					? h("ul", { class: "attention" }, attention)
					: h("p", { class: "empty", text: "Nothing is waiting for the operator." }),
				{ count: attention.length, id: "attention" },
			),
			section(
				"Turn queue",
				table(
					[
						["Request", (t) => h("span", { class: "id", text: `#${t.request_event_id}` }), "num"],
						["Run", (t) => idLink(t.run_id)],
						["Agent", (t) => who(t.agent_id)],
						["Status", (t) => pill(t.status)],
						["Lease until", (t) => time(t.lease_expires_at)],
					],
					[...s.turns].sort((a, b) => a.request_event_id - b.request_event_id),
					{ empty: "No turns queued.", label: "Turn queue" },
				),
				{ count: s.turns.length, id: "turns" },
			),
			section(
				"Agents",
				table(
					[
						["Agent", (a) => h("span", { class: "who", text: a.id })],
						["Role", (a) => a.role],
						["State", (a) => pill(a.enabled ? "enabled" : "disabled")],
						["Status", (a) => a.status],
						[
							"Adapter",
							(a) => h("span", { class: "muted", text: [a.adapter, a.model].filter(Boolean).join(" · ") }),
						],
					],
					s.agents,
					{ empty: "No agents configured.", label: "Agents" },
				),
				{ count: s.agents.length, id: "agents" },
			),
		),
	);
}

// =================================================================================================
// Views: tasks, claims, proposals
// =================================================================================================
// The work in progress: tasks (filtered by status, each body shown on demand), claims (expiring
// soon, active, suspended) and the proposals list that leads to each proposal's detail.
// ---- tasks --------------------------------------------------------------------------------------

function tasks(app) {
	const s = app.state;
	const filter = app.ui.taskFilter;
	const statuses = [...new Set(s.tasks.map((t) => t.status))];
	const chips = ["all", "open work", ...statuses].map((name) =>
		h("button", {
			type: "button",
			class: "chip",
			"aria-pressed": filter === name ? "true" : "false",
			"data-key": `filter:${name}`,
			onclick: () => {
				app.ui.taskFilter = name;
				app.rerender();
			},
			text: `${name.replaceAll("_", " ")} ${name === "all" ? s.tasks.length : name === "open work" ? count(s.tasks, (t) => OPEN_WORK.has(t.status)) : count(s.tasks, (t) => t.status === name)}`,
		}),
	);
	const shown = s.tasks
		.filter(
			(t) => filter === "all" || (filter === "open work" ? OPEN_WORK.has(t.status) : t.status === filter),
		)
		.sort((a, b) => a.priority - b.priority || (a.created_at < b.created_at ? -1 : 1)); // the store's order
	return h(
		"div",
		{ class: "view" },
		section(
			"Tasks",
			[
				h("div", { class: "chips", role: "group", "aria-label": "Filter by status" }, chips),
				table(
					[
						["ID", (t) => idLink(t.id)],
						["Title", (t) => toggle(app, `task:${t.id}`, t.title), "wide"],
						["Status", (t) => pill(t.status)],
						["Assignee", (t) => who(t.assigned_agent_id)],
						["Run", (t) => idLink(t.run_id)],
						["Risk", (t) => pill(t.risk, t.risk === "high" || t.risk === "critical" ? "bad" : "none")],
						["Prio", (t) => t.priority, "num"],
						["Updated", (t) => time(t.updated_at)],
					],
					shown,
					{
						empty: "No tasks match.",
						label: "Tasks",
						rowClass: (t) => `task-row task-${t.id}`,
						detail: (t) => (app.ui.open.has(`task:${t.id}`) ? markdown(t, "body_md", "md task-body") : null),
					},
				),
			],
			{ count: shown.length, id: "tasks" },
		),
	);
}

// ---- claims -------------------------------------------------------------------------------------

function claimTable(rows, empty) {
	return table(
		[
			["Claim", (c) => idLink(c.id)],
			[
				"Resource",
				(c) => [
					h("code", { text: c.path ?? c.resource_id }),
					c.symbol ? h("span", { class: "muted", text: ` ${c.symbol}` }) : null,
					c.start_line ? h("span", { class: "muted", text: ` L${c.start_line}–${c.end_line ?? ""}` }) : null,
				],
				"wide",
			],
			["Type", (c) => c.claim_type],
			["Agent", (c) => who(c.agent_id)],
			["Task", (c) => idLink(c.task_id)],
			["Status", (c) => [pill(c.status), c.expiring_soon ? pill("expiring soon", "warn") : null]],
			["Expires", (c) => time(c.expires_at)],
			["Why", (c) => h("span", { class: "muted", text: c.status_reason ?? c.rationale ?? "" })],
		],
		rows,
		{ empty, label: "Claims" },
	);
}

function claims(app) {
	const s = app.state;
	const soon = s.claims.filter((c) => c.status === "active" && c.expiring_soon);
	const active = s.claims.filter((c) => c.status === "active" && !c.expiring_soon);
	const suspended = s.claims.filter((c) => c.status === "suspended");
	return h(
		"div",
		{ class: "view" },
		section("Expiring soon", claimTable(soon, "No claim expires within five minutes."), {
			count: soon.length,
			id: "claims-soon",
		}),
		section("Active", claimTable(active, "No other active claims."), {
			count: active.length,
			id: "claims-active",
		}),
		section("Suspended", claimTable(suspended, "No suspended claims."), {
			count: suspended.length,
			id: "claims-suspended",
		}),
	);
}

// ---- proposals ----------------------------------------------------------------------------------

function proposals(app) {
	const s = app.state;
	const asked = new Map();
	for (const a of s.approvals)
		if (a.proposal_id && (a.status === "requested" || !asked.has(a.proposal_id)))
			asked.set(a.proposal_id, a.status);
	const rows = [...s.proposals].sort(
		(a, b) => Number(OPEN_PROPOSAL.has(b.status)) - Number(OPEN_PROPOSAL.has(a.status)) || byNewest(a, b),
	);
	return h(
		"div",
		{ class: "view" },
		section(
			"Proposals",
			table(
				[
					["ID", (p) => idLink(p.id, "proposals")],
					[
						"Title",
						(p) => h("a", { href: `#/proposals/${encodeURIComponent(p.id)}`, text: p.title }),
						"wide",
					],
					["Status", (p) => pill(p.status)],
					["Risk", (p) => pill(p.risk, p.risk === "high" || p.risk === "critical" ? "bad" : "none")],
					["Author", (p) => who(p.agent_id)],
					["Task", (p) => idLink(p.task_id)],
					["Rev", (p) => `r${p.patch_revision}`, "num"],
					["Files", (p) => h("span", { title: p.patch_files.join("\n"), text: p.patch_files.length }), "num"],
					[
						"Approval",
						(p) => (asked.has(p.id) ? pill(asked.get(p.id)) : h("span", { class: "muted", text: "—" })),
					],
					["Updated", (p) => time(p.updated_at)],
				],
				rows,
				{ empty: "No proposals yet.", label: "Proposals" },
			),
			{ count: rows.length, id: "proposals" },
		),
	);
}

// =================================================================================================
// Views: transactions, approvals
// =================================================================================================
// What the operator decides on: transactions (with rollback state and a Roll back button) and human
// approvals (awaiting a decision, then decided, each with Approve / Reject and a confirm step).
// ---- transactions -------------------------------------------------------------------------------

function transactions(app) {
	const s = app.state;
	const rows = [...s.transactions].sort(byNewest);
	return h(
		"div",
		{ class: "view" },
		section(
			"Transactions",
			table(
				[
					["ID", (t) => idLink(t.id)],
					["Kind", (t) => t.kind],
					[
						"Proposal",
						(t) => [
							idLink(t.proposal_id, "proposals"),
							h("span", { class: "muted", text: ` r${t.patch_revision}` }),
						],
					],
					["State", (t) => pill(t.status)],
					["Undoes", (t) => idLink(t.rolls_back)],
					["By", (t) => who(t.applied_by)],
					["At", (t) => time(t.applied_at)],
					[
						"Files",
						(t) => toggle(app, `tx:${t.id}`, `${t.files.length} file${t.files.length === 1 ? "" : "s"}`),
					],
					["", (t) => (app.ui.confirm?.id === t.id ? null : rollbackAction(app, t))],
				],
				rows,
				{
					empty: "Nothing applied yet.",
					label: "Transactions",
					detail: (t) => {
						const parts = [];
						if (app.ui.open.has(`tx:${t.id}`))
							parts.push(
								h(
									"ul",
									{ class: "files" },
									t.files.map((f) =>
										h(
											"li",
											{},
											h("code", { text: f.path }),
											" ",
											h("span", {
												class: "muted",
												text: f.before === null ? "created" : f.after === null ? "deleted" : "changed",
											}),
										),
									),
								),
							);
						if (t.reason_md) parts.push(markdown(t, "reason_md"));
						if (app.ui.confirm?.id === t.id) parts.push(rollbackAction(app, t));
						return parts.length > 0 ? parts : null;
					},
				},
			),
			{ count: rows.length, id: "transactions" },
		),
	);
}

// ---- approvals ----------------------------------------------------------------------------------

function approvalTable(app, rows, empty) {
	return table(
		[
			["ID", (a) => idLink(a.id)],
			["Subject", (a) => h("strong", { text: a.subject }), "wide"],
			[
				"About",
				(a) =>
					a.proposal_id
						? [
								idLink(a.proposal_id, "proposals"),
								h("span", { class: "muted", text: a.patch_revision ? ` r${a.patch_revision}` : "" }),
							]
						: idLink(a.task_id),
			],
			["Asked by", (a) => who(a.requested_by)],
			["Reason", (a) => markdown(a, "reason_md"), "wide"],
			["Status", (a) => [pill(a.status), a.override_policy ? pill("override", "warn") : null]],
			[
				"Decided",
				(a) =>
					a.decided_at
						? [who(a.decided_by), " ", time(a.decided_at)]
						: h("span", { class: "muted", text: "—" }),
			],
			["", (a) => (app.ui.confirm?.id === a.id ? null : approvalActions(app, a)), "actions-cell"],
		],
		rows,
		{
			empty,
			label: "Approvals",
			rowClass: (a) => `approval-row approval-${a.id}`,
			detail: (a) => {
				const parts = [];
				if (a.decision_md)
					parts.push(
						h(
							"div",
							{ class: "decision" },
							h("span", { class: "muted", text: "Decision: " }),
							markdown(a, "decision_md"),
						),
					);
				if (app.ui.confirm?.id === a.id) parts.push(approvalActions(app, a));
				return parts.length > 0 ? parts : null;
			},
		},
	);
}

function approvals(app) {
	const s = app.state;
	const waiting = s.approvals
		.filter((a) => a.status === "requested")
		.sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
	const decided = s.approvals.filter((a) => a.status !== "requested").sort(byNewest);
	return h(
		"div",
		{ class: "view" },
		section("Awaiting a decision", approvalTable(app, waiting, "No approval is waiting."), {
			count: waiting.length,
			id: "approvals-waiting",
		}),
		section("Decided", approvalTable(app, decided, "Nothing decided yet."), {
			count: decided.length,
			id: "approvals-decided",
		}),
	);
}

// =================================================================================================
// Views: memory, questions and messages
// =================================================================================================
// What the table knows and says: memory search (/api/memory, results with their matched words
// marked) and the open questions and newest messages.
// ---- memory -------------------------------------------------------------------------------------

async function search(app) {
	const m = app.ui.memory;
	if (m.q.trim() === "") return;
	m.loading = true;
	app.rerender();
	try {
		const out = await getJson(`/api/memory?q=${encodeURIComponent(m.q)}`);
		m.results = out.entries ?? [];
		m.error = null;
	} catch (err) {
		m.error = err.message;
	} finally {
		m.loading = false;
		app.focusKey = "memory-q";
		app.rerender();
	}
}

/** A search snippet with its **matched words** marked, built as text nodes and <mark>s. */
function highlighted(snippet) {
	return snippet.split(/\*\*(.+?)\*\*/).map((part, i) => (i % 2 === 1 ? h("mark", { text: part }) : part));
}

function memory(app) {
	const m = app.ui.memory;
	const form = h(
		"form",
		{
			class: "search",
			role: "search",
			onsubmit: (e) => {
				e.preventDefault();
				search(app);
			},
		},
		h("label", { for: "memory-q", class: "sr-only", text: "Search memory" }),
		h("input", {
			id: "memory-q",
			type: "search",
			"data-key": "memory-q",
			placeholder: "Search project memory (words; press / from anywhere)",
			value: m.q,
			oninput: (e) => {
				m.q = e.target.value;
			},
		}),
		h("button", {
			type: "submit",
			class: "btn",
			disabled: m.loading,
			text: m.loading ? "Searching…" : "Search",
		}),
	);
	let results = null;
	if (m.error) results = h("p", { class: "flash flash-bad", role: "alert", text: m.error });
	else if (m.results)
		results = table(
			[
				[
					"Entry",
					(e) => [
						toggle(app, `memory:${e.id}`, e.title),
						h("p", { class: "snippet" }, highlighted(e.snippet ?? "")),
					],
					"wide",
				],
				["Kind", (e) => pill(e.kind, "none")],
				["Scope", (e) => e.scope],
				["About", (e) => (e.proposal_id ? idLink(e.proposal_id, "proposals") : idLink(e.task_id))],
				[
					"Status",
					(e) => pill(e.status === "stale" ? "stale" : "active", e.status === "stale" ? "warn" : "ok"),
				],
				["Importance", (e) => e.importance, "num"],
				["Updated", (e) => time(e.updated_at)],
			],
			m.results,
			{
				empty: `Nothing in memory matches “${m.q}”.`,
				label: "Memory results",
				detail: (e) => (app.ui.open.has(`memory:${e.id}`) ? markdown(e, "body_md") : null),
			},
		);
	return h(
		"div",
		{ class: "view" },
		section("Memory", [form, results], { id: "memory", count: m.results?.length }),
	);
}

// ---- questions and messages ---------------------------------------------------------------------

function messages(app) {
	const s = app.state;
	const questions = [...s.questions].sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
	return h(
		"div",
		{ class: "view" },
		section(
			"Open questions",
			table(
				[
					["ID", (q) => idLink(q.id)],
					["From → to", (q) => [who(q.requester_id), " → ", who(q.assignee_id)]],
					["Question", (q) => markdown(q, "question_md"), "wide"],
					["About", (q) => (q.proposal_id ? idLink(q.proposal_id, "proposals") : idLink(q.task_id))],
					["Asked", (q) => time(q.created_at)],
				],
				questions,
				{ empty: "No open questions.", label: "Open questions" },
			),
			{ count: questions.length, id: "questions" },
		),
		section(
			"Messages",
			s.messages.length === 0
				? h("p", { class: "empty", text: "No messages." })
				: h(
						"ol",
						{ class: "messages" },
						s.messages.map((msg) =>
							h(
								"li",
								{ class: "message" },
								h(
									"div",
									{ class: "message-head" },
									who(msg.sender_id),
									" → ",
									msg.channel
										? h("span", { class: "channel", text: `#${msg.channel}` })
										: who(msg.to_agent_id),
									" ",
									time(msg.created_at),
									msg.to_agent_id && !msg.read_at ? [" ", pill("unread", "warn")] : null,
								),
								markdown(msg, "body_md"),
							),
						),
					),
			{ count: s.messages.length, id: "messages" },
		),
	);
}

// =================================================================================================
// The views by route
// =================================================================================================
// The list views by route name, each with `deps`: the parts of /api/state it shows, so it is redrawn
// only when those change. The proposal detail is proposal.js.
const VIEWS = {
	overview: {
		deps: ["runs", "turns", "agents", "approvals", "questions", "claims", "tasks", "proposals"],
		render: overview,
	},
	tasks: { deps: ["tasks"], render: tasks },
	claims: { deps: ["claims"], render: claims },
	proposals: { deps: ["proposals", "approvals"], render: proposals },
	transactions: { deps: ["transactions"], render: transactions },
	approvals: { deps: ["approvals"], render: approvals },
	memory: { deps: [], render: memory },
	messages: { deps: ["questions", "messages"], render: messages },
};

// =================================================================================================
// View: one proposal
// =================================================================================================
// One proposal, everything a person needs to decide on it: the policy's gates with reasons, votes
// (who, how, how sure, why), its human approvals with Approve / Reject, the diff of any revision
// (unified or side by side) with security findings on their lines, and the test runs of that
// revision with their sandbox and log (fetched when opened).
async function loadLog(app, id, more = false) {
	const log = app.ui.logs[id] ?? { text: "", next: 0 };
	app.ui.logs[id] = { ...log, loading: true, error: null };
	app.rerender();
	try {
		const page = await getLog(id, more ? log.next : 0);
		const text = more ? log.text + page.text : page.text;
		app.ui.logs[id] = { text, next: page.next, more: page.next !== null, loading: false, error: null };
	} catch (err) {
		app.ui.logs[id] = { ...log, loading: false, error: err.message };
	}
	app.rerender();
}

function logPanel(app, id) {
	const log = app.ui.logs[id];
	if (!log || (log.loading && !log.text)) return h("p", { class: "muted", text: "Loading the log…" });
	return [
		log.error ? h("p", { class: "flash flash-bad", role: "alert", text: log.error }) : null,
		h("pre", {
			class: "log",
			tabindex: "0",
			"aria-label": `Log of ${id}`,
			text: log.text === "" ? "(empty log)" : log.text,
		}),
		log.more
			? h("button", {
					type: "button",
					class: "btn",
					onclick: () => loadLog(app, id, true),
					text: log.loading ? "Loading…" : "Load more",
				})
			: null,
	];
}

function segmented(label, options, current, choose) {
	return h(
		"div",
		{ class: "segmented", role: "group", "aria-label": label },
		options.map(([value, text]) =>
			h("button", {
				type: "button",
				"aria-pressed": value === current ? "true" : "false",
				"data-key": `${label}:${value}`,
				onclick: () => choose(value),
				text,
			}),
		),
	);
}

function gatesPanel(gates) {
	if (!gates) return h("p", { class: "empty", text: "No gate report." });
	return [
		h(
			"p",
			{ class: "gate-summary" },
			pill(gates.valid ? "valid" : "invalid", gates.valid ? "ok" : "bad"),
			" ",
			pill(gates.approvable ? "approvable" : "not approvable", gates.approvable ? "ok" : "bad"),
		),
		h(
			"ul",
			{ class: "gates" },
			(gates.gates ?? []).map((g) =>
				h(
					"li",
					{ class: g.ok ? "gate ok" : "gate fail" },
					h("span", { class: "mark", "aria-label": g.ok ? "passes" : "fails", text: g.ok ? "✓" : "✗" }),
					h("code", { text: g.gate }),
					h("span", { class: "reason", text: g.reason ?? "" }),
				),
			),
		),
	];
}

function votesPanel(votes, current) {
	return table(
		[
			["Agent", (v) => h("span", { class: "who", text: v.agent_id })],
			["Vote", (v) => pill(v.vote)],
			[
				"Confidence",
				(v) => (typeof v.confidence === "number" ? `${Math.round(v.confidence * 100)}%` : "—"),
				"num",
			],
			["Reason", (v) => markdown(v, "reason_md"), "wide"],
			["Rev", (v) => [`r${v.patch_revision}`, v.patch_revision !== current ? pill("earlier", "none") : null]],
		],
		votes,
		{ empty: "No votes yet.", label: "Votes" },
	);
}

function securityPanel(reviews) {
	if (reviews.length === 0) return h("p", { class: "empty", text: "No security review of this revision." });
	return reviews.map((r) =>
		h(
			"div",
			{ class: "review" },
			h(
				"p",
				{},
				pill(r.status),
				" ",
				h("span", { class: "who", text: r.reviewer_id }),
				" ",
				h("span", { class: "muted", text: `${r.mode} · ` }),
				time(r.created_at),
			),
			r.summary_md ? markdown(r, "summary_md") : null,
			(r.findings ?? []).length === 0
				? null
				: table(
						[
							[
								"Severity",
								(f) =>
									pill(f.severity, f.severity === "low" ? "none" : f.severity === "medium" ? "warn" : "bad"),
							],
							["Rule", (f) => h("code", { text: f.rule ?? f.code ?? "" })],
							["Where", (f) => h("code", { text: `${f.path}:${f.line}` })],
							["Finding", (f) => f.message, "wide"],
						],
						r.findings,
						{ label: "Findings" },
					),
		),
	);
}

function testsPanel(app, runs) {
	return table(
		[
			["Run", (t) => idLink(t.id)],
			["Status", (t) => pill(t.status)],
			["Command", (t) => h("code", { text: t.command }), "wide"],
			[
				"Sandbox",
				(t) => [
					pill(t.sandbox, t.sandbox === "bwrap" ? "ok" : "warn"),
					t.sandbox_reason ? h("span", { class: "muted", text: ` ${t.sandbox_reason}` }) : null,
				],
			],
			["Exit", (t) => t.exit_code ?? "—", "num"],
			["Started", (t) => time(t.started_at)],
			["Finished", (t) => time(t.finished_at)],
			[
				"Log",
				(t) => {
					const key = `log:${t.id}`;
					const open = app.ui.open.has(key);
					return h("button", {
						type: "button",
						class: "linkish",
						"aria-expanded": open ? "true" : "false",
						"data-key": key,
						onclick: () => {
							if (open) app.ui.open.delete(key);
							else {
								app.ui.open.add(key);
								if (!app.ui.logs[t.id]) return loadLog(app, t.id);
							}
							app.rerender();
						},
						text: open ? "Hide log" : "Show log",
					});
				},
			],
		],
		runs,
		{
			empty: "No test runs on this revision.",
			label: "Test runs",
			detail: (t) => (app.ui.open.has(`log:${t.id}`) ? logPanel(app, t.id) : null),
		},
	);
}

function proposalView(app, id) {
	const d = app.ui.detail;
	if (!d || d.id !== id) {
		app.loadDetail(id);
		return h("p", { class: "empty", text: `Loading ${id}…` });
	}
	const back = h(
		"nav",
		{ class: "crumbs", "aria-label": "Breadcrumb" },
		h("a", { href: "#/proposals", text: "← Proposals" }),
	);
	if (!d.data)
		return h(
			"div",
			{ class: "view" },
			back,
			h("p", {
				class: d.error ? "flash flash-bad" : "empty",
				role: d.error ? "alert" : null,
				text: d.error ?? `Loading ${id}…`,
			}),
		);
	const { proposal: p, revisions = [], votes = [], security_reviews = [], test_runs = [], gates } = d.data;
	const ui = app.ui;
	const latest = revisions.reduce((m, r) => Math.max(m, r.number), p.patch_revision);
	const rev = ui.revision[id] ?? latest;
	const revision = revisions.find((r) => r.number === rev);
	const reviews = security_reviews.filter((r) => r.patch_revision === rev || r.patch_revision === null);
	const findings = reviews.flatMap((r) => r.findings ?? []);
	const files = revision ? parseDiff(revision.diff ?? "") : [];
	const approvals = app.state.approvals.filter((a) => a.proposal_id === id);
	const lines = (f) => f.hunks.reduce((n, hk) => n + hk.lines.length, 0);
	return h(
		"div",
		{ class: "view proposal" },
		back,
		h(
			"header",
			{ class: "proposal-head" },
			h("h1", {}, idLink(p.id), " ", p.title),
			h(
				"p",
				{ class: "meta" },
				pill(p.status),
				" ",
				pill(`${p.risk} risk`, p.risk === "high" || p.risk === "critical" ? "bad" : "none"),
				" by ",
				h("span", { class: "who", text: p.agent_id }),
				" · task ",
				idLink(p.task_id),
				` · revision ${p.patch_revision} · ${p.patch_files.length} file${p.patch_files.length === 1 ? "" : "s"} · updated `,
				time(p.updated_at),
			),
			d.error
				? h("p", { class: "flash flash-bad", role: "alert", text: `Could not refresh: ${d.error}` })
				: null,
			markdown(d.data, "summary_md", "md summary"),
		),
		approvals.length > 0
			? section(
					"Human approval",
					h(
						"ul",
						{ class: "approvals-here" },
						approvals.map((a) =>
							h(
								"li",
								{ class: `approval-row approval-${a.id}` },
								h(
									"p",
									{},
									pill(a.status),
									a.override_policy ? [" ", pill("override", "warn")] : null,
									" ",
									h("strong", { text: a.subject }),
									h("span", {
										class: "muted",
										title: a.id,
										text: ` ${shortId(a.id)} · r${a.patch_revision ?? "—"} · asked by ${a.requested_by}`,
									}),
								),
								markdown(a, "reason_md"),
								approvalActions(app, a),
							),
						),
					),
					{ count: approvals.length, id: "p-approvals" },
				)
			: null,
		h(
			"div",
			{ class: "columns" },
			section("Gates", gatesPanel(gates), {
				id: "p-gates",
				count: gates?.gates ? `${gates.gates.filter((g) => g.ok).length}/${gates.gates.length}` : undefined,
			}),
			section("Votes", votesPanel(votes, p.patch_revision), { id: "p-votes", count: votes.length }),
		),
		section(
			`Diff, revision ${rev}`,
			[
				revision
					? h(
							"p",
							{ class: "muted small pad" },
							rev === p.patch_revision ? null : [pill("earlier revision", "warn"), " "],
							`sha256 ${revision.sha256.slice(0, 12)} · `,
							time(revision.created_at),
						)
					: null,
				revision
					? renderDiff(files, {
							mode: ui.diffMode,
							findings,
							open: (path) =>
								ui.files[`${id}:${rev}:${path}`] ?? lines(files.find((f) => f.path === path)) <= 800,
							onToggle: (path, open) => {
								ui.files[`${id}:${rev}:${path}`] = open;
							},
						})
					: h("p", { class: "empty", text: "This revision's patch is not stored." }),
			],
			{
				id: "p-diff",
				actions: h(
					"div",
					{ class: "tools" },
					revisions.length > 1
						? segmented(
								"Revision",
								revisions.map((r) => [r.number, `r${r.number}`]),
								rev,
								(n) => {
									ui.revision[id] = n;
									app.rerender();
								},
							)
						: null,
					segmented(
						"Diff layout",
						[
							["unified", "Unified"],
							["split", "Side by side"],
						],
						ui.diffMode,
						(mode) => {
							ui.diffMode = mode;
							localStorage.setItem("rt.diffMode", mode);
							app.rerender();
						},
					),
				),
			},
		),
		section(`Security review, revision ${rev}`, securityPanel(reviews), {
			id: "p-security",
			count: reviews.length,
		}),
		section(
			`Tests on revision ${rev}`,
			testsPanel(
				app,
				test_runs.filter((t) => t.patch_revision === rev),
			),
			{
				id: "p-tests",
				count: test_runs.filter((t) => t.patch_revision === rev).length,
			},
		),
	);
}

// =================================================================================================
// The app: routing, drawing, live data, keys, start
// =================================================================================================
// The dashboard's entry: load the snapshot (/api/state), follow the event stream and re-fetch what
// changed (debounced), route by the URL's hash, and draw the current view. Views are functions of
// (state, ui); a view is redrawn only when its slice of the state or the ui changed, and the
// focused control is found again afterwards by its data-key, so live updates never steal focus.
const main = document.getElementById("main");
const nav = document.getElementById("nav");
const conn = document.getElementById("conn");
const banner = document.getElementById("banner");

const app = {
	state: null,
	/** What the reader did: open rows, the confirm form, filters, the diff mode, fetched logs. */
	ui: {
		open: new Set(),
		confirm: null,
		note: "",
		override: false,
		busy: null,
		flash: {},
		taskFilter: "all",
		memory: { q: "", results: null, error: null, loading: false },
		diffMode: localStorage.getItem("rt.diffMode") === "split" ? "split" : "unified",
		revision: {},
		files: {},
		logs: {},
		detail: null,
	},
	focusKey: null,
	rerender: () => render(true),
	refresh: () => changed(),
	loadDetail: (id) => loadDetail(id),
};

// ---- routing ------------------------------------------------------------------------------------

function route() {
	const [name = "", id] = location.hash.replace(/^#\/?/, "").split("/");
	if (name === "proposals" && id) return { name: "proposal", id: decodeURIComponent(id) };
	return { name: VIEWS[name] ? name : "overview" };
}

const TABS = [
	["overview", "Overview"],
	["tasks", "Tasks"],
	["claims", "Claims"],
	["proposals", "Proposals"],
	["transactions", "Transactions"],
	["approvals", "Approvals"],
	["memory", "Memory"],
	["messages", "Messages"],
];

function badges(s) {
	if (!s) return {};
	return {
		approvals: s.approvals.filter((a) => a.status === "requested").length,
		proposals: s.proposals.filter((p) => p.status === "pending" || p.status === "in_review").length,
		claims: s.claims.filter((c) => c.expiring_soon || c.status === "suspended").length,
		messages: s.questions.length,
		tasks: s.tasks.filter((t) => t.status === "open" || t.status === "in_progress" || t.status === "blocked")
			.length,
	};
}

let navKey = "";

/** The tabs with their counts; rebuilt only when those change, so a focused tab keeps its focus. */
function drawNav(current) {
	const counts = badges(app.state);
	const here = current === "proposal" ? "proposals" : current;
	const key = JSON.stringify([here, counts]);
	if (key === navKey) return;
	navKey = key;
	nav.replaceChildren(
		...TABS.map(([name, label], i) =>
			h(
				"a",
				{
					href: `#/${name === "overview" ? "" : name}`,
					"aria-current": name === here ? "page" : null,
					title: `${label} (key ${i + 1})`,
				},
				label,
				counts[name] ? h("span", { class: "badge", text: counts[name] }) : null,
			),
		),
	);
}

// ---- drawing ------------------------------------------------------------------------------------

let drawnKey = "";

function viewKey(r) {
	const s = app.state;
	const view =
		r.name === "proposal" ? { deps: ["approvals", "proposals", "security_reviews"] } : VIEWS[r.name];
	const slice = s ? view.deps.map((d) => s[d]) : null;
	return JSON.stringify([r, slice, r.name === "proposal" ? app.ui.detail : null]);
}

function render(force = false) {
	const r = route();
	const key = viewKey(r);
	drawNav(r.name);
	if (!force && key === drawnKey) return;
	drawnKey = key;
	const active = document.activeElement;
	const focus = app.focusKey ?? (main.contains(active) ? active?.dataset?.key : null);
	app.focusKey = null;
	let body;
	if (!app.state) body = h("p", { class: "empty", text: "Loading the table…" });
	else if (r.name === "proposal") body = proposalView(app, r.id);
	else body = VIEWS[r.name].render(app);
	main.replaceChildren(body);
	const label = r.name === "proposal" ? r.id : (TABS.find(([n]) => n === r.name)?.[1] ?? "");
	const waiting = badges(app.state).approvals;
	document.title = `${label} · Roundtable${waiting ? ` (${waiting} awaiting approval)` : ""}`;
	if (focus) main.querySelector(`[data-key="${CSS.escape(focus)}"]`)?.focus();
}

function showBanner(text, link) {
	if (!text) return banner.replaceChildren();
	banner.replaceChildren(
		h("p", { role: "alert" }, text, link ? [" ", h("a", { href: link.href, text: link.text })] : null),
	);
}

// ---- data ---------------------------------------------------------------------------------------

async function loadState() {
	try {
		app.state = await getJson("/api/state");
		setCsrf(app.state.csrf_token);
		showBanner(null);
	} catch (err) {
		if (err instanceof ApiError && err.status === 401)
			showBanner("Your dashboard session has ended.", { href: "/", text: "Sign in again" });
		else showBanner(`Could not load the table: ${err.message}`);
		throw err;
	}
	render();
}

async function loadDetail(id) {
	const prior = app.ui.detail?.id === id ? app.ui.detail : null;
	app.ui.detail = { id, data: prior?.data ?? null, error: null };
	try {
		app.ui.detail = { id, data: await getJson(`/api/proposals/${encodeURIComponent(id)}`), error: null };
	} catch (err) {
		app.ui.detail = { id, data: prior?.data ?? null, error: err.message };
	}
	render();
}

// One fetch at a time; events arriving meanwhile coalesce into one more fetch 100 ms later.
let timer = 0;
let fetching = false;
let dirty = false;
let detailDirty = false;

function changed(event) {
	dirty = true;
	const open = route();
	if (open.name === "proposal" && (!event || JSON.stringify(event).includes(open.id))) detailDirty = true;
	if (!timer && !fetching) timer = setTimeout(pull, 100);
}

async function pull() {
	timer = 0;
	fetching = true;
	dirty = false;
	const detail = detailDirty;
	detailDirty = false;
	const open = route();
	try {
		await Promise.all([loadState(), detail && open.name === "proposal" ? loadDetail(open.id) : null]);
	} catch {
		// the banner says it; the next event or reconnect tries again
	} finally {
		fetching = false;
		if (dirty || detailDirty) timer = setTimeout(pull, 100);
	}
}

let wasLive = false;
function showConnection(status) {
	const words = {
		connecting: "connecting…",
		live: "live",
		reconnecting: "reconnecting…",
		offline: "offline",
	};
	conn.className = `conn conn-${status}`;
	conn.replaceChildren(h("span", { class: "dot", "aria-hidden": "true" }), words[status] ?? status);
	conn.title = status === "live" ? "Following the event stream" : "Not receiving events; retrying";
	// A reconnect catches up on anything missed; going offline checks whether the session ended.
	if ((status === "live" && wasLive) || status === "offline") changed();
	if (status === "live") wasLive = true;
}

// ---- signing out --------------------------------------------------------------------------------

document.getElementById("logout").addEventListener("click", async () => {
	try {
		await postJson("/api/logout", {});
	} catch {
		// ended already: the login page is where this goes either way
	}
	location.assign("/");
});

// ---- keys ---------------------------------------------------------------------------------------

document.addEventListener("keydown", (e) => {
	if (e.key === "Escape" && app.ui.confirm) {
		app.focusKey = `decide:${app.ui.confirm.id}`;
		app.ui.confirm = null;
		return render(true);
	}
	if (e.altKey || e.ctrlKey || e.metaKey || e.target.closest?.("input, textarea, select")) return;
	const n = Number(e.key);
	if (n >= 1 && n <= TABS.length) {
		const name = TABS[n - 1][0];
		location.hash = `#/${name === "overview" ? "" : name}`;
	} else if (e.key === "/") {
		e.preventDefault();
		app.focusKey = "memory-q";
		if (route().name !== "memory")
			location.hash = "#/memory"; // hashchange draws it
		else render(true);
	}
});

window.addEventListener("hashchange", () => {
	const r = route();
	app.ui.confirm = null;
	if (r.name === "proposal") loadDetail(r.id); // fresh each visit: events while away were not followed
	render(true);
	// Focus goes to the new view (where a screen reader starts reading) unless a control in it already
	// has it (the memory search after "/", which a draw between the key and this event may have focused).
	const active = document.activeElement;
	if (!main.contains(active) || active === main) main.focus({ preventScroll: true });
	window.scrollTo(0, 0);
});

// ---- start --------------------------------------------------------------------------------------

async function start() {
	render(true);
	const r = route();
	try {
		await Promise.all([loadState(), r.name === "proposal" ? loadDetail(r.id) : null]);
	} catch {
		// shown in the banner; the stream's reconnects retry
	}
	follow(app.state?.last_event_id ?? null, { onEvent: changed, onStatus: showConnection });
}

start();
