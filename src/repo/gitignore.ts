// gitignore(5) patterns, matched the way git's own code does it (dir.c and wildmatch.c), so a
// listing built from them is the one `git ls-files --others --exclude-standard` gives. Each pattern
// becomes one regular expression. Git compares bytes and JavaScript code units: the two differ only
// for non-ASCII characters inside a bracket expression.

export interface IgnoreRule {
	/** `!pattern`: a match re-includes. */
	negative: boolean;
	/** `pattern/`: only a directory matches. */
	dirOnly: boolean;
	/** No slash in the pattern: it is matched against the last segment of a path only. */
	basename: boolean;
	/** Whether the pattern matches a (base)name; a literal or `*literal` needs no regular expression. */
	test: (name: string) => boolean;
}

/** The rules of one ignore file, in file order. */
export function parseIgnore(text: string, ignoreCase: boolean): IgnoreRule[] {
	const rules: IgnoreRule[] = [];
	const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
	for (const raw of body.split("\n")) {
		if (raw === "" || raw.startsWith("#")) continue;
		const line = trimTrailingSpaces(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
		const rule = parseRule(line, ignoreCase);
		if (rule) rules.push(rule);
	}
	return rules;
}

/**
 * The verdict of one file's rules on a path: true (ignored), false (re-included) or undefined (no
 * rule matches, so a file of lower precedence decides). `rel` is relative to the ignore file's
 * directory; the last matching rule wins, as in git.
 */
export function verdict(rules: IgnoreRule[], rel: string, isDir: boolean): boolean | undefined {
	let name: string | undefined;
	for (let i = rules.length - 1; i >= 0; i--) {
		const rule = rules[i] as IgnoreRule;
		if (rule.dirOnly && !isDir) continue;
		if (rule.basename) name ??= rel.slice(rel.lastIndexOf("/") + 1);
		if (rule.test(rule.basename ? (name as string) : rel)) return !rule.negative;
	}
	return undefined;
}

/** Trailing spaces go, unless a backslash escapes them (dir.c: trim_trailing_spaces). */
function trimTrailingSpaces(line: string): string {
	let lastSpace = -1;
	for (let i = 0; i < line.length; i++) {
		const c = line[i];
		if (c === " ") {
			if (lastSpace === -1) lastSpace = i;
		} else {
			if (c === "\\") i++;
			lastSpace = -1;
		}
	}
	return lastSpace === -1 ? line : line.slice(0, lastSpace);
}

/** dir.c: parse_path_pattern, then the pattern compiled for match_basename or match_pathname. */
function parseRule(line: string, ignoreCase: boolean): IgnoreRule | undefined {
	let pattern = line;
	const negative = pattern.startsWith("!");
	if (negative) pattern = pattern.slice(1);
	const dirOnly = pattern.endsWith("/");
	if (dirOnly) pattern = pattern.slice(0, -1);
	if (pattern === "") return undefined;
	const basename = !pattern.includes("/");
	let source: string | undefined;
	if (basename) source = wildmatch(pattern, 0);
	else {
		// match_pathname drops one leading slash and compares the part before the first wildcard
		// literally: wildmatch sees only the rest, so a `**` right after that part counts as leading.
		if (pattern.startsWith("/")) pattern = pattern.slice(1);
		source = wildmatch(pattern, literalLength(pattern));
	}
	// A pattern git can never match (an unclosed bracket, a trailing backslash) is left out.
	if (source === undefined) return undefined;
	return { negative, dirOnly, basename, test: tester(pattern, source, ignoreCase) };
}

/** Most patterns are a name or `*.ext`: compared as strings, as git does (EXC_FLAG_ENDSWITH). */
function tester(pattern: string, source: string, ignoreCase: boolean): (name: string) => boolean {
	if (!ignoreCase) {
		if (literalLength(pattern) === pattern.length) return (name) => name === pattern;
		const rest = pattern.slice(1);
		if (pattern.startsWith("*") && literalLength(rest) === rest.length && !rest.includes("/"))
			return (name) => name.endsWith(rest) && !name.slice(0, -rest.length || undefined).includes("/");
	}
	const regex = new RegExp(`^${source}$`, ignoreCase ? "i" : "");
	return (name) => regex.test(name);
}

/** How many leading characters hold no wildcard (dir.c: simple_length). */
function literalLength(pattern: string): number {
	const i = pattern.search(/[*?[\\]/);
	return i === -1 ? pattern.length : i;
}

const escapeRegex = (c: string) => c.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/**
 * A wildmatch pattern (WM_PATHNAME) as a regular expression source, or undefined when git would
 * never match it. `start` is where wildmatch's own view of the pattern begins (see parseRule).
 */
function wildmatch(p: string, start: number): string | undefined {
	let out = "";
	let i = 0;
	while (i < p.length) {
		const c = p[i] as string;
		if (c === "\\") {
			// A trailing backslash matches nothing.
			if (i + 1 >= p.length) return undefined;
			out += escapeRegex(p[i + 1] as string);
			i += 2;
		} else if (c === "?") {
			out += "[^/]";
			i++;
		} else if (c === "*") {
			let j = i;
			while (p[j] === "*") j++;
			const leading = i === start || (i > start && p[i - 1] === "/");
			const trailing = j === p.length || p[j] === "/" || (p[j] === "\\" && p[j + 1] === "/");
			if (j - i >= 2 && leading && trailing) {
				// `**/`: any number of directories, none included; a final `**`: everything below.
				if (p[j] === "/") {
					out += "(?:.*/)?";
					j++;
				} else out += ".*";
			} else out += "[^/]*";
			i = j;
		} else if (c === "[") {
			const bracket = bracketExpression(p, i);
			if (bracket === undefined) return undefined;
			out += bracket.source;
			i = bracket.end;
		} else {
			out += escapeRegex(c);
			i++;
		}
	}
	return out;
}

/** ASCII character classes as git's sane_ctype has them. */
const CLASSES: Record<string, string> = {
	alnum: "a-zA-Z0-9",
	alpha: "a-zA-Z",
	blank: " \\t",
	cntrl: "\\x00-\\x1f\\x7f",
	digit: "0-9",
	graph: "!-~",
	lower: "a-z",
	print: " -~",
	punct: "!-\\/:-@\\[-`{-~",
	space: " \\t\\n\\r",
	upper: "A-Z",
	xdigit: "0-9A-Fa-f",
};

/**
 * `[...]` starting at `open`, read as wildmatch reads it: `!` or `^` negates, a `]` right after the
 * opening is a member, `a-z` is a range, `[:name:]` a class, a backslash escapes. It never matches a
 * slash. Undefined when it is unclosed or names an unknown class: git then matches nothing.
 */
function bracketExpression(p: string, open: number): { source: string; end: number } | undefined {
	let j = open + 1;
	const negated = p[j] === "!" || p[j] === "^";
	if (negated) j++;
	let members = "";
	let prev: string | undefined; // the previous single member, which may start a range
	do {
		let c = p[j];
		if (c === undefined) return undefined;
		if (c === "\\") {
			c = p[++j];
			if (c === undefined) return undefined;
			members += escapeRegex(c);
			prev = c;
		} else if (c === "-" && prev !== undefined && p[j + 1] !== undefined && p[j + 1] !== "]") {
			let hi = p[++j] as string;
			if (hi === "\\") {
				const escaped = p[++j];
				if (escaped === undefined) return undefined;
				hi = escaped;
			}
			// A reversed range matches nothing; JavaScript would refuse it.
			if (prev <= hi) members += `${escapeRegex(prev)}-${escapeRegex(hi)}`;
			prev = undefined;
		} else if (c === "[" && p[j + 1] === ":") {
			const close = p.indexOf("]", j + 2);
			if (close === -1) return undefined;
			if (close - (j + 2) < 1 || p[close - 1] !== ":") {
				// Not a class after all: the `[` is a member and reading goes on after it.
				members += "\\[";
				prev = "[";
			} else {
				const cls = CLASSES[p.slice(j + 2, close - 1)];
				if (cls === undefined) return undefined;
				members += cls;
				prev = undefined;
				j = close;
			}
		} else {
			members += escapeRegex(c);
			prev = c;
		}
		j++;
	} while (p[j] !== "]");
	const source = negated ? `[^${members}/]` : members === "" ? "[]" : `(?!/)[${members}]`;
	return { source, end: j + 1 };
}
