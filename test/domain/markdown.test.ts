// Markdown made inert (src/dashboard/server/markdown.ts), tried against what a hostile body would hold: raw
// HTML blocks and tags, event-handler attributes, script URLs in every disguise (case, entities,
// whitespace, controls, references, autolinks), attribute breakouts in titles and code languages.
// The output is read back with a real HTML parser (Bun's HTMLRewriter), not with the module's own
// check, so a hole in both would still show.
import { describe, expect, test } from "bun:test";
import { decodeEntities, isInert, renderMarkdown, safeUrl } from "../../src/dashboard/server/markdown.ts";

interface Element {
	tag: string;
	attributes: [string, string][];
}

/** Every element a browser-grade parser finds in `html`, with its raw attributes. */
function elementsOf(html: string): Element[] {
	const found: Element[] = [];
	new HTMLRewriter()
		.on("*", {
			element(e) {
				found.push({ tag: e.tagName, attributes: [...e.attributes] as [string, string][] });
			},
		})
		.transform(html);
	return found;
}

const TAGS = new Set(
	"p h1 h2 h3 h4 h5 h6 hr br blockquote pre code ul ol li input table thead tbody tr th td strong em del a img".split(
		" ",
	),
);

/** What an attribute value means to a browser: the only references the renderer writes, decoded. */
function attributeValue(raw: string): string {
	// Any other reference would be decoded by a browser into something this test did not check.
	expect(raw.replace(/&(?:amp|quot|#39|lt|gt);/g, "")).not.toContain("&");
	return raw
		.replace(/&quot;/g, '"')
		.replace(/&#39;/g, "'")
		.replace(/&lt;/g, "<")
		.replace(/&gt;/g, ">")
		.replace(/&amp;/g, "&");
}

/** The scheme a browser would see in a URL attribute (lower case), or "" for a relative one. */
function schemeOf(value: string): string {
	// biome-ignore lint/suspicious/noControlCharactersInRegex: what a URL parser strips
	const url = value.replace(/[\t\n\r]/g, "").replace(/^[\x00-\x20]+/, "");
	return /^([a-zA-Z][a-zA-Z0-9+.-]*):/.exec(url)?.[1]?.toLowerCase() ?? "";
}

/** Fails unless `html` can run nothing: known tags, no handlers, only http(s), mailto or relative URLs. */
function expectInert(html: string) {
	for (const e of elementsOf(html)) {
		expect(TAGS.has(e.tag)).toBe(true);
		for (const [name, raw] of e.attributes) {
			expect(name).not.toMatch(/^on/i);
			expect([
				"href",
				"src",
				"title",
				"alt",
				"class",
				"start",
				"align",
				"checked",
				"disabled",
				"type",
			]).toContain(name);
			const value = attributeValue(raw);
			if (name === "href" || name === "src")
				expect(["", "http", "https", "mailto"]).toContain(schemeOf(value));
		}
	}
	expect(isInert(html)).toBe(true);
}

const render = (md: string) => {
	const html = renderMarkdown(md);
	expectInert(html);
	return html;
};

describe("raw HTML is text", () => {
	test.each([
		["a script block", "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"],
		["an inline script", "hi <script>alert(1)</script> there", "&lt;script&gt;alert(1)&lt;/script&gt;"],
		["an image with onerror", "<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"],
		[
			"an inline image with onerror",
			"see <img src=x onerror=alert(1)>",
			"&lt;img src=x onerror=alert(1)&gt;",
		],
		[
			"an iframe",
			'<iframe src="https://evil.example"></iframe>',
			"&lt;iframe src=&quot;https://evil.example&quot;&gt;",
		],
		[
			"an anchor with a script URL",
			'<a href="javascript:alert(1)">x</a>',
			"&lt;a href=&quot;javascript:alert(1)&quot;&gt;",
		],
		[
			"a div with a handler",
			'<div onclick="alert(1)">\n\n*md*\n\n</div>',
			"&lt;div onclick=&quot;alert(1)&quot;&gt;",
		],
		["svg onload", "<svg onload=alert(1)>", "&lt;svg onload=alert(1)&gt;"],
		["a style block", "<style>body{display:none}</style>", "&lt;style&gt;"],
		["a comment", "<!-- <script>alert(1)</script> -->", "&lt;!-- &lt;script&gt;"],
		["a form", '<form action="https://evil.example"><button>go</button></form>', "&lt;form action="],
		["a meta refresh", '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">', "&lt;meta"],
		["an object", '<object data="javascript:alert(1)"></object>', "&lt;object"],
		["a CDATA section", "<![CDATA[<script>alert(1)</script>]]>", "&lt;![CDATA["],
	])("%s", (_, md, shown) => {
		const html = render(md);
		expect(html).toContain(shown);
		expect(elementsOf(html).map((e) => e.tag)).not.toContainAnyValues([
			"script",
			"img",
			"iframe",
			"svg",
			"style",
			"div",
			"form",
			"meta",
			"object",
		]);
	});

	test("text marked would pass through raw after <pre>, <code> or <script> is escaped", () => {
		// marked keeps text after such an opening tag unescaped; a tag its own pattern misses
		// (no space before the attribute) would have been live.
		for (const open of ["<pre>", "<code>", "<script>", "<kbd>"]) {
			const html = render(`x ${open}<img/src=x/onerror=alert(1)> and <svg/onload=alert(1)>`);
			expect(elementsOf(html).map((e) => e.tag)).toEqual(["p"]);
			expect(html).toContain("&lt;img/src=x/onerror=alert(1)&gt;");
		}
	});

	test("HTML entities for tags stay text", () => {
		const html = render("&lt;script&gt;alert(1)&lt;/script&gt; and &#60;img src=x onerror=alert(1)&#62;");
		expect(elementsOf(html).map((e) => e.tag)).toEqual(["p"]);
	});
});

describe("links and images keep only http(s), mailto and relative URLs", () => {
	const hostile = [
		"javascript:alert(1)",
		"JaVaScRiPt:alert(1)",
		"JAVASCRIPT:alert(1)",
		"&#106;avascript:alert(1)",
		"&#x6A;avascript:alert(1)",
		"&#X6a;avascript:alert(1)",
		"&#0000106;avascript:alert(1)",
		"javascript&colon;alert(1)",
		"javascript&#58;alert(1)",
		"javascript&#x3a;alert(1)",
		"java&#09;script:alert(1)",
		"java&Tab;script:alert(1)",
		"java&NewLine;script:alert(1)",
		"&#32;javascript:alert(1)",
		"<javascript:alert(1)>",
		"< javascript:alert(1)>",
		"<java\tscript:alert(1)>",
		"data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
		"DATA:text/html,<script>alert(1)</script>",
		"vbscript:msgbox(1)",
		"VbScRiPt:msgbox(1)",
		"file:///etc/passwd",
		"%6Aavascript:alert(1)",
		"jav\\ascript:alert(1)",
	];

	test.each(hostile)("a link to %s keeps its text and loses its URL", (url) => {
		const html = render(`[click me](${url})`);
		expect(html).toContain("click me");
		expect(html).not.toContain("<a");
	});

	test.each(hostile)("an image of %s keeps its alt text and loses its source", (url) => {
		const html = render(`![the alt](${url})`);
		expect(html).toContain("the alt");
		expect(html).not.toContain("<img");
	});

	test("a reference definition to a script URL is dropped, so is an autolink", () => {
		const ref = render("[go][r] and ![pic][r]\n\n[r]: javascript:alert(1)");
		expect(ref).not.toContain("<a");
		expect(ref).not.toContain("<img");
		expect(render("<javascript:alert(1)>")).not.toContain("<a");
		expect(render("<vbscript:msgbox(1)>")).not.toContain("<a");
	});

	test("whitespace and control characters around a scheme do not hide it", () => {
		for (const md of [
			"[x](  javascript:alert(1)  )",
			"[x](<\tjavascript:alert(1)>)",
			"[x](<java\nscript:alert(1)>)",
			"[x](\u0001javascript:alert(1))",
			"[x](\u0000javascript:alert(1))",
		])
			expect(render(md)).not.toMatch(/<a /);
	});

	test("http(s), mailto and relative links are kept, with their text and title", () => {
		const html = render(
			'[a](https://example.com/x?y=1&z=2 "The title") [b](http://example.com) [c](mailto:a@example.com) [d](../docs/x.md) [e](/abs) [f](#frag) [g](?q=1)',
		);
		const links = elementsOf(html).filter((e) => e.tag === "a");
		expect(links.map((l) => attributeValue(l.attributes.find(([n]) => n === "href")?.[1] ?? ""))).toEqual([
			"https://example.com/x?y=1&z=2",
			"http://example.com",
			"mailto:a@example.com",
			"../docs/x.md",
			"/abs",
			"#frag",
			"?q=1",
		]);
		expect(html).toContain('title="The title"');
	});

	test("GFM autolinks and email autolinks become links", () => {
		const html = render("see https://example.com/a, www.example.org and <someone@example.com>");
		expect(html).toContain('<a href="https://example.com/a">');
		expect(html).toContain('<a href="http://www.example.org">');
		expect(html).toContain('<a href="mailto:someone@example.com">');
	});

	test("a title cannot break out of its attribute", () => {
		for (const md of [
			'[x](https://e.com "a\\" onmouseover=\\"alert(1)")',
			"[x](https://e.com 'a\" onmouseover=alert(1) x=')",
			'[x](https://e.com (a" onmouseover="alert(1)))',
			'![x](https://e.com/i.png "t\\" onerror=\\"alert(1)")',
			'[x](https://e.com "&quot; onmouseover=&quot;alert(1)")',
			'[x](https://e.com "<script>alert(1)</script>")',
		]) {
			const html = render(md);
			for (const e of elementsOf(html)) expect(e.attributes.map(([n]) => n)).not.toContain("onmouseover");
			for (const e of elementsOf(html)) expect(e.attributes.map(([n]) => n)).not.toContain("onerror");
		}
	});

	test("the alt text of an image is escaped", () => {
		const html = render('![a" onerror="alert(1)](https://e.com/i.png)');
		const img = elementsOf(html).find((e) => e.tag === "img");
		expect(img?.attributes.map(([n]) => n).sort()).toEqual(["alt", "src"]);
	});

	test("a URL with quotes or brackets stays inside its attribute", () => {
		const html = render('[x](<https://e.com/a"onmouseover="alert(1)>)');
		expect(
			elementsOf(html)
				.find((e) => e.tag === "a")
				?.attributes.map(([n]) => n),
		).toEqual(["href"]);
	});
});

describe("Markdown still renders", () => {
	test("headings, emphasis, lists, task lists, code, quotes and tables", () => {
		const html = render(
			[
				"# Title",
				"",
				"Some **bold**, *em*, ~~del~~ and `a <code> span`.",
				"",
				"1. one",
				"2. two",
				"",
				"- [x] done",
				"- [ ] open",
				"",
				"> quoted",
				"",
				"```ts",
				"const a = 1 < 2 && '<script>';",
				"```",
				"",
				"| a | b |",
				"|:--|--:|",
				"| <b>1</b> | 2 |",
			].join("\n"),
		);
		expect(elementsOf(html).map((e) => e.tag)).toEqual(
			expect.arrayContaining([
				"h1",
				"strong",
				"em",
				"del",
				"code",
				"ol",
				"li",
				"input",
				"blockquote",
				"pre",
				"table",
				"th",
				"td",
			]),
		);
		expect(html).toContain("<code>a &lt;code&gt; span</code>");
		expect(html).toContain(
			'<code class="language-ts">const a = 1 &lt; 2 &amp;&amp; &#39;&lt;script&gt;&#39;;',
		);
		expect(html).toContain("&lt;b&gt;1&lt;/b&gt;");
	});

	test("a code block's language cannot break out of its class", () => {
		const html = render('```js"><script>alert(1)</script>\nx\n```');
		expect(elementsOf(html).map((e) => e.tag)).toEqual(["pre", "code"]);
	});

	test("an ordered list keeps its start; blank input renders nothing", () => {
		expect(render("3. three\n4. four")).toContain('<ol start="3">');
		expect(renderMarkdown("")).toBe("");
		expect(renderMarkdown("  \n ")).toBe("");
	});
});

describe("many hostile fragments together", () => {
	const FRAGMENTS = [
		"<script>alert(1)</script>",
		"<img src=x onerror=alert(1)>",
		"<img/src=x/onerror=alert(1)>",
		"[a](javascript:alert(1))",
		"[b](&#106;avascript:alert(1))",
		"![c](data:image/svg+xml,<svg onload=alert(1)>)",
		"<a href='javascript:alert(1)'>d</a>",
		"<pre>",
		"</pre>",
		"<code>",
		"`code <b>`",
		"**bold <i onmouseover=alert(1)>**",
		"\n\n",
		"\n- ",
		"\n> ",
		"\n```\n",
		"<iframe srcdoc='<script>alert(1)</script>'>",
		'[e](https://ok.example "t\\" onclick=\\"x")',
		"<https://ok.example>",
		"<javascript:alert(1)>",
		"&#60;script&#62;",
		"[f]: javascript:alert(1)\n\n[f]",
		"| x | <b onclick=alert(1)>y</b> |\n|-|-|\n| 1 | 2 |",
		"<details open ontoggle=alert(1)>",
	];

	test("500 seeded mixes render inert", () => {
		let seed = 21;
		const next = () => {
			seed = (seed * 1103515245 + 12345) % 2 ** 31;
			return seed;
		};
		for (let i = 0; i < 500; i++) {
			const parts = Array.from({ length: 1 + (next() % 8) }, () => FRAGMENTS[next() % FRAGMENTS.length]);
			render(parts.join(next() % 2 === 0 ? " " : ""));
		}
	});
});

describe("isInert: the last check", () => {
	test("refuses what the renderer never writes", () => {
		for (const html of [
			"<script>alert(1)</script>",
			"<p onclick=alert(1)>x</p>",
			'<p onclick="alert(1)">x</p>',
			'<img src="x" onerror="alert(1)">',
			'<a href="javascript:alert(1)">x</a>',
			'<a href="&#106;avascript:alert(1)">x</a>',
			'<a href="java&#x09;script:alert(1)">x</a>',
			'<img src="data:image/png;base64,AAAA" alt="">',
			"<iframe></iframe>",
			"<p>x <b>y</b></p>",
			"<p>1 < 2</p>",
			'<input type="text">',
			'<code class="x">y</code>',
			"</p class=x>",
		])
			expect({ html, inert: isInert(html) }).toEqual({ html, inert: false });
	});

	test("accepts what it writes", () => {
		for (const html of [
			"<p>plain &lt;script&gt;</p>",
			'<p><a href="https://e.com/?a=1&amp;b=2" title="t &quot;q&quot;">x</a></p>',
			'<img src="/rel.png" alt="a">',
			'<ul><li><input checked="" disabled="" type="checkbox"> x</li></ul>',
			'<ol start="2"><li>x</li></ol>',
			'<pre><code class="language-ts">x</code></pre>',
			'<table><tr><th align="left">a</th></tr></table>',
		])
			expect({ html, inert: isInert(html) }).toEqual({ html, inert: true });
	});
});

describe("safeUrl and decodeEntities", () => {
	test("schemes are compared without case, after decoding and trimming", () => {
		expect(safeUrl("HTTPS://e.com")).toBe("HTTPS://e.com");
		expect(safeUrl("MailTo:x@e.com")).toBe("MailTo:x@e.com");
		expect(safeUrl(" \u0001javascript:x")).toBeUndefined();
		expect(safeUrl("&#x6a;avascript:x")).toBeUndefined();
		expect(safeUrl("java\tscript:x")).toBeUndefined();
		expect(safeUrl("a b/c d")).toBe("a%20b/c%20d");
		expect(safeUrl("100%25")).toBe("100%25");
		expect(safeUrl("/\uD800")).toBeUndefined();
	});

	test("decodes numeric references and a few named ones, leaves others as they are", () => {
		expect(decodeEntities("&#106;&#x61;&colon;&Tab;&amp;&unknown;&#0;")).toBe("ja:\t&&unknown;\uFFFD");
	});
});
