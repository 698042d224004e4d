// The automatic security scan of added lines (or of a resource's content): dangerous commands and
// secrets, each finding with where it is and how bad.
//
// It works line by line on text only, so it is a tripwire, not a parser: each rule is a small,
// readable heuristic tuned to catch the common shapes and stay quiet on the common look-alikes
// (`form` is not `rm`, `process.env.TOKEN` is not a hardcoded token, "token refreshed" is not a
// leaked token). A critical finding vetoes a proposal, so critical rules only fire on text that is a
// credential by its shape alone. Messages name what was found and where, never the secret itself:
// findings are stored and shown, and must not become the leak they report.

import type { ReviewStatus } from "../vocabulary/statuses.ts";

export const SEVERITIES = ["critical", "high", "medium", "low"] as const;
export type Severity = (typeof SEVERITIES)[number];

export interface ScannedLine {
	path: string;
	line: number;
	text: string;
}

export interface Finding {
	code: string;
	severity: Severity;
	path: string;
	line: number;
	message: string;
}

/** What every rule sees besides the line: the configured commands, compiled once per scan. */
interface ScanContext {
	commands: { command: string; pattern: RegExp }[];
}

interface Rule {
	code: string;
	severity: Severity;
	/** What the rule found on this line (a detail for the message), or null when it does not fire. */
	test: (line: ScannedLine, context: ScanContext) => string | null;
	message: (detail: string) => string;
}

// ---------------------------------------------------------------------------------------------
// Dangerous commands

// A command matches only as a whole word: not inside an identifier (`form`, `rm_rf_helper`,
// `$rm`) nor a kebab-case name or flag (`--rm`, `rm-button`), which is why `-` and `$` count as
// word characters here. Quotes, `$(`, `/bin/`, `sudo ` and the like are all boundaries.
const WORD_BEFORE = String.raw`(?<![\p{L}\p{N}_$-])`;
// A file name is not a command either: `rm.txt`; a full stop that ends a sentence is fine.
const WORD_AFTER = String.raw`(?![\p{L}\p{N}_-]|\.[\p{L}\p{N}])`;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");

/** A configured command as a pattern: its words on word boundaries, any whitespace between them.
 *  Case-sensitive, as commands are (`RM` in a constant is not `rm`). Null for a blank entry. The
 *  policy's destructive_command profile uses the same pattern, so scan and policy always agree. */
export function commandPattern(command: string): RegExp | null {
	const words = command.trim().split(/\s+/).filter(Boolean);
	if (words.length === 0) return null;
	return new RegExp(`${WORD_BEFORE}${words.map(escapeRegExp).join(String.raw`\s+`)}${WORD_AFTER}`, "u");
}

function configuredCommands(line: ScannedLine, context: ScanContext): string | null {
	const found = context.commands.filter((c) => c.pattern.test(line.text)).map((c) => `"${c.command}"`);
	return found.length > 0 ? found.join(", ") : null;
}

// ---------------------------------------------------------------------------------------------
// Credentials recognizable by shape alone (critical)

// PEM and PGP armor: "BEGIN <kind> PRIVATE KEY" or "BEGIN PGP PRIVATE KEY BLOCK" between five
// dashes. The key body is on the following lines; the header alone is enough to know.
const PRIVATE_KEY_HEADER = /-----BEGIN ((?:[A-Z0-9]+ )*)PRIVATE KEY(?: BLOCK)?-----/;

function privateKeyBlock(line: ScannedLine): string | null {
	const match = PRIVATE_KEY_HEADER.exec(line.text);
	if (!match) return null;
	const kind = match[1]?.trim();
	return kind ? `${kind} private key block` : "private key block";
}

// Provider credentials with a fixed prefix and alphabet. Each pattern refuses to start or end
// inside a longer token, so a random identifier that happens to contain a prefix does not match.
const CLOUD_KEYS: { kind: string; pattern: RegExp }[] = [
	{ kind: "AWS access key id", pattern: /(?<![A-Za-z0-9])(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])/ },
	{ kind: "Google API key", pattern: /(?<![\w-])AIza[\w-]{35}(?![\w-])/ },
	{ kind: "GitHub token", pattern: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_\w{22,})/ },
	{ kind: "Slack token", pattern: /(?<![A-Za-z0-9])xox[abprs]-[A-Za-z0-9-]{10,}/ },
	// Restricted keys (rk_live_) can do as much harm as secret ones within their scope.
	{ kind: "Stripe live secret key", pattern: /(?<![A-Za-z0-9])[rs]k_live_[A-Za-z0-9]{24,}/ },
];

function cloudAccessKeys(line: ScannedLine): string | null {
	const kinds = CLOUD_KEYS.filter((k) => k.pattern.test(line.text)).map((k) => k.kind);
	return kinds.length > 0 ? kinds.join(", ") : null;
}

// ---------------------------------------------------------------------------------------------
// Secret-named identifiers, shared by the hardcoded-secret and logged-secret rules

/** apiKey, API_KEY, api-key, $client_secret, OAuth2Token → lower-case words. */
function identifierWords(identifier: string): string[] {
	return identifier
		.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
		.replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter(Boolean);
}

const PASSWORD_WORDS = ["password", "passwd", "passphrase", "pass", "secret", "token"];
const HARDCODED_LAST_WORDS = new Set(PASSWORD_WORDS);
// "credentials" is a secret when printed, but as an assigned name it is mostly a mode
// (`credentials: "same-origin"` in fetch), so only the logging rule looks for it.
const LOGGED_LAST_WORDS = new Set([...PASSWORD_WORDS, "credentials", "credential", "creds"]);
const KEY_QUALIFIERS = new Set(["api", "private", "secret"]);
const GLUED_KEYS = new Set(["apikey", "privatekey", "secretkey"]);

/**
 * Whether an identifier names a secret. Its *last* word decides: `authToken`, `client_secret`,
 * `DB_PASSWORD`, `aws_secret_access_key` do; `tokenUrl`, `tokenizer`, `passwordHint`,
 * `privateKeyPath`, `maxTokens` describe something about a secret (or nothing) and do not.
 */
function isSecretName(identifier: string, lastWords: Set<string>): boolean {
	const words = identifierWords(identifier);
	const last = words.at(-1);
	if (last === undefined) return false;
	if (lastWords.has(last) || GLUED_KEYS.has(last)) return true;
	return last === "key" && words.slice(0, -1).some((w) => KEY_QUALIFIERS.has(w));
}

// ---------------------------------------------------------------------------------------------
// Hardcoded secrets (high)

// `name <op> value`, where the name may be quoted or indexed (`"password":`, `["api_key"] =`), may
// carry a type (`apiKey: string =`, `API_KEY: str =`, `var apiKey string =`), and the operator is
// one of `=`, `:`, `:=`, `=>` but never a comparison (`==`, `===`, `!=`, `<=`) or a `::` path.
const ASSIGNMENT = new RegExp(
	[
		String.raw`(?<![\w$-])["']?(?<name>[A-Za-z_$][\w$-]*)["']?\]?`,
		String.raw`(?:\s*:\s*[\w$.<>[\]|]+|\s+[\w$.<>[\]*]+)?`,
		String.raw`\s*(?::=|=>|(?<![=!<>])=(?![=~])|:(?![:=]))\s*`,
		// A quoted literal (Python r"", b"" prefixes allowed; f-strings are interpolation), or in
		// config files a bare value. Both are capped in length so that a long (minified) line costs
		// a bounded look-ahead per candidate name, not the rest of the line each time.
		String.raw`(?:[rRbBuU]?(?<q>["'\x60])(?<quoted>(?:\\.|(?!\k<q>)[^\\]){0,1024})\k<q>|(?<bare>[^\s"'\x60]\S{0,1023}))`,
	].join(""),
	"g",
);

// Files where a value needs no quotes to be a literal: YAML, .env, properties/ini, shell, Dockerfile.
// Elsewhere an unquoted value is code (`password = input`, `token: process.env.TOKEN`).
const BARE_VALUE_FILE =
	/(?:^|\/)(?:\.env[^/]*|[^/]*\.(?:ya?ml|env|properties|ini|cfg|conf|sh|bash|zsh)|\.npmrc|\.pypirc|Dockerfile[^/]*|[^/]*\.dockerfile)$/i;

const PLACEHOLDER_WORDS = [
	"changeme",
	"changeit",
	"changethis",
	"replaceme",
	"placeholder",
	"redacted",
	"example",
];

/** Values that are obviously not a real credential, or not a literal at all. */
function isPlaceholder(value: string): boolean {
	if (value.length < 8) return true; // "", "xxx", "secret": too short to be a credential
	if (/\s/.test(value)) return true; // prose: a label or a message ("Invalid token"), not a credential
	if (/\$\{|\{\{|\$\(|^\$|^%\(/.test(value)) return true; // ${VAR}, {{ var }}, $(cmd), $VAR, %(var)s
	if (/^<.*>$/.test(value)) return true; // <your-token>
	if (/^[!*&|>[{]/.test(value)) return true; // YAML tags (!vault), aliases, block and flow values
	if (/^(?:\/|\.{1,2}\/|~\/)/.test(value)) return true; // a path to the secret, not the secret
	const letters = value.toLowerCase().replace(/[^a-z0-9]/g, "");
	if (/^(.)\1*$/.test(value) || /^x+$/.test(letters)) return true; // ********, xxxx-xxxx
	return letters.startsWith("your") || PLACEHOLDER_WORDS.some((w) => letters.includes(w));
}

function hardcodedSecret(line: ScannedLine): string | null {
	const bareAllowed = BARE_VALUE_FILE.test(line.path);
	// Every start position is tried (lastIndex steps by one), so that `const password = "…"` is not
	// hidden behind a first, harmless match on `const`.
	ASSIGNMENT.lastIndex = 0;
	for (let m = ASSIGNMENT.exec(line.text); m; m = ASSIGNMENT.exec(line.text)) {
		ASSIGNMENT.lastIndex = m.index + 1;
		const { name, quoted, bare } = m.groups ?? {};
		const value = quoted ?? (bareAllowed ? bare : undefined);
		if (name === undefined || value === undefined) continue;
		if (isSecretName(name, HARDCODED_LAST_WORDS) && !isPlaceholder(value.trim())) return name;
	}
	return null;
}

// ---------------------------------------------------------------------------------------------
// Secrets written to logs (high)

// Calls whose arguments end up in a log or on the console. The look-behind keeps out
// `window.print(`, `sprintf(`, `blueprint(` and `catalog.find(`.
const LOG_CALL =
	/(?<![\w$.])(?<call>console\.\w+|(?:[\w$]+\.)*_?(?:logger|logging|log)\.\w+|[ep]?print(?:ln|f)?!?|fmt\.F?print\w*|System\.(?:out|err)\.print\w*)\s*\(/gi;
// Shell and CI printing (`echo "$TOKEN"`, `run: echo ${{ secrets.API_TOKEN }}`): there a bare
// word is text, so only `$` references count.
const SHELL_PRINT = /(?<![\w$.-])(?<call>echo|printf)\s+(?<args>.*)$/;
const SHELL_REFERENCE = /\$\{\{([^}]*)\}\}|\$\{([^}]*)\}|\$([A-Za-z_]\w*)/g;
// An identifier or a property chain (`user.password`, `cfg.Token`), reported whole.
const IDENTIFIER_CHAIN = /[A-Za-z_$][\w$]*(?:\s*\??\.\s*[A-Za-z_$][\w$]*)*/g;
// Made safe for output on purpose: `redact(token)`, `maskSecret(apiKey)`, `hashPassword(password)`.
const REDACTING = "(?:redact|mask|hash|sanitiz|scrub|censor|obfuscat)";
const REDACTING_NAME = new RegExp(`^${REDACTING}`, "i");
const REDACTING_CALL = new RegExp(`${REDACTING}\\w*\\s*\\(\\s*$`, "i");

interface Literal {
	/** Letters glued before the quote: f, rf, b… */
	prefix: string;
	body: string;
}

// How far a call's arguments are read: bounds the work on a long line of unbalanced calls.
const MAX_ARGUMENTS = 500;

/** A call's arguments from just after its `(` to the matching `)` (or the end of the line):
 *  the code between string literals, and the literals themselves. */
function callArguments(text: string, from: number): { code: string; literals: Literal[] } {
	let code = "";
	const literals: Literal[] = [];
	let depth = 1;
	const stop = Math.min(text.length, from + MAX_ARGUMENTS);
	for (let i = from; i < stop; i++) {
		const c = text[i] as string;
		if (c === '"' || c === "'" || c === "`") {
			let end = i + 1;
			while (end < stop && text[end] !== c) end += text[end] === "\\" ? 2 : 1;
			literals.push({ prefix: /[A-Za-z]*$/.exec(code)?.[0] ?? "", body: text.slice(i + 1, end) });
			code += " ";
			i = end;
			continue;
		}
		if (c === "(") depth++;
		if (c === ")" && --depth === 0) break;
		code += c;
	}
	return { code, literals };
}

/** The expressions a string literal interpolates: `${…}`, `#{…}`, `$name`, and `{…}` in f-strings.
 *  A literal's plain text ("token refreshed") is never an identifier. */
function interpolations(literal: Literal): string[] {
	const found = [...literal.body.matchAll(/\$\{([^}]*)\}|#\{([^}]*)\}|\$([A-Za-z_]\w*)/g)].map(
		(m) => m[1] ?? m[2] ?? m[3] ?? "",
	);
	if (/f/i.test(literal.prefix))
		found.push(...[...literal.body.matchAll(/\{([^{}]*)\}/g)].map((m) => m[1] ?? ""));
	return found;
}

/** The first identifier or property chain in a piece of code that names a secret in any of its
 *  parts (`token`, `user.password`, `token.length`), unless it is being redacted. */
function secretIdentifier(code: string): string | null {
	for (const m of code.matchAll(IDENTIFIER_CHAIN)) {
		const parts = m[0].split(/\s*\??\.\s*/);
		if (!parts.some((part) => isSecretName(part, LOGGED_LAST_WORDS))) continue;
		// Only the text just before the name can wrap it (and scanning all of it would be quadratic).
		const before = code.slice(Math.max(0, m.index - 64), m.index);
		if (REDACTING_NAME.test(parts.at(-1) ?? "") || REDACTING_CALL.test(before)) continue;
		return parts.join(".");
	}
	return null;
}

function secretLogged(line: ScannedLine): string | null {
	for (const m of line.text.matchAll(LOG_CALL)) {
		const { code, literals } = callArguments(line.text, m.index + m[0].length);
		for (const piece of [code, ...literals.flatMap(interpolations)]) {
			const name = secretIdentifier(piece);
			if (name) return `"${name}" passed to ${m.groups?.call}`;
		}
	}
	const shell = SHELL_PRINT.exec(line.text);
	for (const m of shell?.groups?.args?.matchAll(SHELL_REFERENCE) ?? []) {
		const name = secretIdentifier(m[1] ?? m[2] ?? m[3] ?? "");
		if (name) return `"${name}" passed to ${shell?.groups?.call}`;
	}
	return null;
}

// ---------------------------------------------------------------------------------------------
// The rules and the scan

const RULES: Rule[] = [
	{
		code: "private_key",
		severity: "critical",
		test: privateKeyBlock,
		message: (kind) => `${kind} (a private key must never be committed)`,
	},
	{
		code: "cloud_access_key",
		severity: "critical",
		test: cloudAccessKeys,
		message: (kinds) => `${kinds} (revoke it; read credentials from the environment)`,
	},
	{
		code: "dangerous_command",
		severity: "high",
		test: configuredCommands,
		message: (commands) => `dangerous command ${commands}`,
	},
	{
		code: "hardcoded_secret",
		severity: "high",
		test: hardcodedSecret,
		message: (name) => `hardcoded secret assigned to "${name}" (load it from the environment)`,
	},
	{
		code: "secret_logged",
		severity: "high",
		test: secretLogged,
		message: (detail) => `secret written to a log: ${detail}`,
	},
];

const rank = (severity: Severity) => SEVERITIES.indexOf(severity);
// Code-unit order, not localeCompare: the same findings sort the same way on every machine.
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Findings sorted by severity rank (critical first), then path, line and code. */
export function scanLines(lines: ScannedLine[], dangerousCommands: string[]): Finding[] {
	const commands = [...new Set(dangerousCommands.map((c) => c.trim()))].flatMap((command) => {
		const pattern = commandPattern(command);
		return pattern ? [{ command, pattern }] : [];
	});
	const context: ScanContext = { commands };
	const findings: Finding[] = [];
	for (const line of lines) {
		// At most one finding per rule per line: a rule's detail already lists everything it saw.
		for (const rule of RULES) {
			const detail = rule.test(line, context);
			if (detail === null) continue;
			const { code, severity } = rule;
			findings.push({ code, severity, path: line.path, line: line.line, message: rule.message(detail) });
		}
	}
	return findings.sort(
		(a, b) =>
			rank(a.severity) - rank(b.severity) ||
			compare(a.path, b.path) ||
			a.line - b.line ||
			compare(a.code, b.code),
	);
}

/** A critical finding vetoes; any other finding needs changes; none approves. */
export function verdictOf(findings: Finding[]): ReviewStatus {
	if (findings.some((f) => f.severity === "critical")) return "veto";
	return findings.length > 0 ? "needs_changes" : "approved";
}
