// The DOM toolkit: `h` builds elements (text only through textContent, handlers through addEventListener,
// so no data ever becomes markup), `insertHtml` places the server's rendered Markdown after re-checking
// it, and the pieces every view shares (tables that fold into cards when narrow, pills, times, id links).

/**
 * An element: `h("a", { href: "#/x", class: "c", onclick: fn }, "text", child)`. Keys starting with
 * "on" become listeners; `text` sets textContent; false, null and undefined attributes and children
 * are left out; everything else is an attribute (never from data: the names are this code's).
 */
export function h(tag, attrs = {}, ...children) {
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
export function markdown(record, field, cls = "md") {
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
export function pill(word, tone) {
	const t = tone ?? Object.keys(TONES).find((k) => TONES[k].split(" ").includes(word)) ?? "none";
	return h("span", { class: `pill pill-${t}`, text: String(word).replaceAll("_", " ") });
}

/** "14:03:22" today, "Dec 2 14:03" otherwise; the full time as a tooltip. */
export function time(iso) {
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
export function shortId(id) {
	const m = /^([A-Za-z]+-)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}([0-9a-f]{8})$/.exec(id);
	return m ? `${m[1]}…${m[2]}` : id;
}

/** An id (short, the whole one as tooltip), linked to its view (`#/proposals/P-1`) when `route` is given. */
export function idLink(id, route) {
	if (!id) return h("span", { class: "muted", text: "—" });
	const attrs = { class: "id", title: id, text: shortId(id) };
	return route ? h("a", { href: `#/${route}/${encodeURIComponent(id)}`, ...attrs }) : h("span", attrs);
}

/**
 * A table: `columns` are [label, (row) => cell, className?]. `detail(row)` may give a node shown in
 * a full-width row under it (an expanded body, a confirm form). On a narrow window CSS folds each
 * row into a card, labelling each cell from its data-label.
 */
export function table(columns, rows, { empty = "Nothing here.", rowClass, detail, label } = {}) {
	// `empty` is text, or nodes (a command shown as code).
	if (rows.length === 0)
		return typeof empty === "string"
			? h("p", { class: "empty", text: empty })
			: h("p", { class: "empty" }, empty);
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
export function section(title, body, { count, id, actions } = {}) {
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
