// A proposal's patch as people read it: the unified diff text parsed into files, hunks and numbered
// lines, drawn unified or side by side, with security findings placed under the lines they name
// (path and new-file line number). Findings on lines the diff does not show are listed per file.
import { h, pill } from "./dom.js";

/** Files of a unified (git-style or plain) diff: {path, oldPath, newPath, meta[], binary, hunks[]}. */
export function parseDiff(text) {
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
export function renderDiff(files, { mode = "unified", findings = [], open, onToggle }) {
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
