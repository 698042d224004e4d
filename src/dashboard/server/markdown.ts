// Markdown bodies (task bodies, summaries, reasons, questions, messages) as HTML a browser can show
// without running anything. `marked` renders and does not sanitize, so here: every raw HTML block and
// tag is escaped into text, link and image URLs are kept only for http(s), mailto and relative ones,
// and a last check refuses any output holding a tag or attribute outside a short allowlist (it then
// falls back to the source as escaped text). Pure, no I/O: the dashboard renders with it, server-side.

import { Marked, type Tokens } from "marked";

const SCHEMES = new Set(["http", "https", "mailto"]);

const NAMED: Record<string, string> = {
	amp: "&",
	lt: "<",
	gt: ">",
	quot: '"',
	apos: "'",
	colon: ":",
	tab: "\t",
	newline: "\n",
};

/**
 * Numeric and a few named character references decoded, as a browser decodes an attribute. A named
 * one left out stays literal, and the caller escapes every `&` it emits, so what it checked is what
 * the browser sees.
 */
export function decodeEntities(text: string): string {
	return text.replace(/&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([a-zA-Z]+));?/g, (whole, dec, hex, name) => {
		if (name !== undefined) return NAMED[(name as string).toLowerCase()] ?? whole;
		const code = dec !== undefined ? Number(dec) : Number.parseInt(hex as string, 16);
		return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)
			? "\uFFFD"
			: String.fromCodePoint(code);
	});
}

/**
 * The URL a link or image may carry, or undefined. It is read the way a browser's URL parser reads
 * it (entities decoded, tabs and newlines removed, C0 controls and spaces trimmed); a scheme, if it
 * has one, must be http, https or mailto; without one it is relative. The result is percent-encoded
 * where needed, not yet escaped for an attribute.
 */
export function safeUrl(raw: string): string | undefined {
	const url = decodeEntities(raw)
		.replace(/[\t\n\r]/g, "")
		// biome-ignore lint/suspicious/noControlCharactersInRegex: the C0 controls are what a URL parser trims
		.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, "");
	const scheme = /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1];
	if (scheme !== undefined && !SCHEMES.has(scheme.toLowerCase())) return undefined;
	// No scheme, yet a colon before the path (`%6Aavascript:…`): a browser reads it as a relative
	// path, but nothing here needs one, so it is dropped too.
	if (scheme === undefined && /^[^/?#]*:/.test(url)) return undefined;
	try {
		// As marked does: spaces and non-ASCII percent-encoded, an existing %xx kept.
		return encodeURI(url).replace(/%25/g, "%");
	} catch {
		return undefined; // a lone surrogate
	}
}

/** Every character that means something in HTML, `&` included: for attributes and raw HTML. */
export function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

const ESCAPES: Record<string, string> = {
	"&": "&amp;",
	"<": "&lt;",
	">": "&gt;",
	'"': "&quot;",
	"'": "&#39;",
};

/** Text content: as escapeHtml, but a character reference already there is kept (it is text either way). */
const escapeText = (text: string) =>
	text.replace(
		/[<>"']|&(?!#\d{1,7};|#[xX][0-9a-fA-F]{1,6};|[a-zA-Z][a-zA-Z0-9]*;)/g,
		(c) => ESCAPES[c] as string,
	);

const renderer = new Marked({
	gfm: true,
	async: false,
	renderer: {
		// Raw HTML, block or inline, is shown as the text it is.
		html(token: Tokens.HTML | Tokens.Tag) {
			const text = escapeHtml(token.text);
			return token.block ? `<p>${text.trimEnd()}</p>\n` : text;
		},
		// marked passes text inside <pre>, <code> or <script> through unescaped: not here.
		text(token: Tokens.Text | Tokens.Escape) {
			if ("tokens" in token && token.tokens) return this.parser.parseInline(token.tokens);
			return escapeText(token.text);
		},
		link(token: Tokens.Link) {
			const inner = this.parser.parseInline(token.tokens);
			const href = safeUrl(token.href);
			if (href === undefined) return inner;
			const title = token.title ? ` title="${escapeHtml(decodeEntities(token.title))}"` : "";
			return `<a href="${escapeHtml(href)}"${title}>${inner}</a>`;
		},
		image(token: Tokens.Image) {
			const alt = this.parser.parseInline(token.tokens, this.parser.textRenderer);
			const src = safeUrl(token.href);
			if (src === undefined) return escapeHtml(alt);
			const title = token.title ? ` title="${escapeHtml(decodeEntities(token.title))}"` : "";
			return `<img src="${escapeHtml(src)}" alt="${escapeHtml(alt)}"${title}>`;
		},
	},
});

/** The tags the renderer writes, each with the attributes it may carry. */
const ALLOWED: Record<string, readonly string[]> = {
	p: [],
	h1: [],
	h2: [],
	h3: [],
	h4: [],
	h5: [],
	h6: [],
	hr: [],
	br: [],
	blockquote: [],
	pre: [],
	code: ["class"],
	ul: [],
	ol: ["start"],
	li: [],
	input: ["checked", "disabled", "type"],
	table: [],
	thead: [],
	tbody: [],
	tr: [],
	th: ["align"],
	td: ["align"],
	strong: [],
	em: [],
	del: [],
	a: ["href", "title"],
	img: ["src", "alt", "title"],
};

const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9]*)((?:\s+[a-zA-Z-]+(?:="[^"<>]*")?)*)\s*>/y;
const ATTRIBUTE = /\s+([a-zA-Z-]+)(?:="([^"]*)")?/g;

/** Whether a value an attribute carries is one the renderer writes. */
function attributeOk(tag: string, name: string, value: string): boolean {
	switch (name) {
		case "href":
		case "src":
			return safeUrl(value) !== undefined;
		case "class":
			return /^language-[^\s]*$/.test(decodeEntities(value));
		case "type":
			return value === "checkbox";
		case "start":
			return /^\d+$/.test(value);
		case "align":
			return /^(?:left|right|center)$/.test(value);
		default:
			return tag !== "input" || value === "";
	}
}

/**
 * Whether `html` holds only the allowlisted tags and attributes, with safe URLs: every `<` in it
 * opens such a tag. Text escapes `<`, so any other `<` is a hole in the renderer.
 */
export function isInert(html: string): boolean {
	for (let at = html.indexOf("<"); at !== -1; at = html.indexOf("<", at + 1)) {
		TAG.lastIndex = at;
		const m = TAG.exec(html);
		if (!m) return false;
		const [, closing, rawName, attributes] = m as unknown as [string, string, string, string];
		const name = rawName.toLowerCase();
		const allowed = ALLOWED[name];
		if (!allowed || (closing && attributes !== "")) return false;
		for (const a of attributes.matchAll(ATTRIBUTE)) {
			const attr = (a[1] as string).toLowerCase();
			if (!allowed.includes(attr) || !attributeOk(name, attr, a[2] ?? "")) return false;
		}
	}
	return true;
}

/**
 * Markdown as inert HTML: raw HTML escaped, link and image URLs limited to http(s), mailto and
 * relative (others dropped, their text kept). Should the output ever fail `isInert`, the source is
 * returned as escaped text instead.
 */
export function renderMarkdown(markdown: string): string {
	if (markdown.trim() === "") return "";
	let html: string;
	try {
		html = renderer.parse(markdown) as string;
	} catch {
		html = "";
	}
	return html !== "" && isInert(html) ? html : `<p>${escapeHtml(markdown)}</p>\n`;
}
