// POLICIES.ROUNDTABLE.md → Policy. The fenced yaml blocks (found with marked's lexer) are parsed
// with yaml, checked against the policy's shape, and deep-merged in order over DEFAULT_POLICY: a
// block changes only the fields it sets, and a list replaces the list it sets. Every error names
// the Markdown file and line, like config errors do.
import { lexer } from "marked";
import { didYouMean, quoted, suggestion } from "../domain/text.ts";
import { dotted, isPlainObject, type KeyPath, readYaml } from "../domain/yaml-source.ts";
import { DEFAULT_POLICY } from "./defaults.ts";
import { PolicyError } from "./errors.ts";
import type { Policy, Profile } from "./types.ts";

/** The profiles the evaluator knows how to detect; a file can tune them but not invent new ones. */
export const PROFILE_NAMES = Object.keys(DEFAULT_POLICY.consensus);

// The shape a block may take. Leaves name the kind of value a field holds.
type Leaf = "quorum" | "positive" | "flag" | "names";
type Shape = Leaf | { [key: string]: Shape };

const PROFILE_SHAPE: Record<keyof Profile, Leaf> = {
	approvals_required: "quorum",
	blockers_allowed: "quorum",
	required_roles: "names",
	tests_required: "flag",
	human_approval_required: "flag",
	security_veto_blocks: "flag",
	security_approval_required: "flag",
	rollback_plan_required: "flag",
	tests_sandbox_required: "flag",
};

const SHAPE: Shape = {
	consensus: Object.fromEntries(PROFILE_NAMES.map((name) => [name, PROFILE_SHAPE])),
	risk: { high_paths: "names" },
	commands: { dangerous: "names" },
	architecture: { min_files: "positive", min_top_level_dirs: "positive" },
};

type Fail = (path: KeyPath, detail: string) => never;

const describe = (v: unknown) =>
	Array.isArray(v)
		? "a list"
		: isPlainObject(v)
			? "a mapping"
			: v === undefined
				? "nothing"
				: JSON.stringify(v);

const isCount = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0;

/** Checks one leaf value; `fail`s with a message naming the key and what was there. */
function checkLeaf(kind: Leaf, value: unknown, path: KeyPath, fail: Fail): void {
	const key = `'${dotted(path)}'`;
	const was = ` (was ${describe(value)})`;
	switch (kind) {
		case "quorum":
			// null unsets a quorum the defaults give, leaving it to the other detected profiles.
			if (value !== null && !isCount(value))
				fail(path, `${key} must be an integer of zero or more, or null${was}`);
			return;
		case "positive":
			if (!isCount(value) || value === 0) fail(path, `${key} must be a positive integer${was}`);
			return;
		case "flag":
			if (typeof value !== "boolean") fail(path, `${key} must be true or false${was}`);
			return;
		case "names":
			if (!Array.isArray(value)) fail(path, `${key} must be a list of strings (use [] for none)${was}`);
			(value as unknown[]).forEach((item, i) => {
				if (typeof item !== "string" || item.trim() === "") {
					fail([...path, i], `'${dotted([...path, i])}' must be a non-empty string (was ${describe(item)})`);
				}
			});
	}
}

function check(value: unknown, shape: Shape, path: KeyPath, fail: Fail): void {
	if (typeof shape === "string") {
		checkLeaf(shape, value, path, fail);
		return;
	}
	// `risk:` with nothing under it (YAML null) sets nothing, like an empty mapping.
	if (value === null || value === undefined) return;
	if (!isPlainObject(value)) {
		fail(
			path,
			path.length === 0
				? `a yaml block must be a mapping of keys to values (was ${describe(value)})`
				: `'${dotted(path)}' must be a mapping (was ${describe(value)})`,
		);
	}
	const known = Object.keys(shape);
	for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
		const here = [...path, key];
		const childShape = Object.hasOwn(shape, key) ? shape[key] : undefined;
		if (childShape === undefined) {
			const near = didYouMean(key, known);
			fail(
				here,
				`unknown key ${quoted(dotted(here))}${suggestion(near === undefined ? near : dotted([...path, near]))}`,
			);
		}
		check(child, childShape as Shape, here, fail);
	}
}

interface Block {
	/** 1-based line of the opening fence in the Markdown file; the yaml's line n is fence + n. */
	fence: number;
	text: string;
}

const FENCE = /^(`{3,}|~{3,})/;

/**
 * The top-level ```yaml blocks, in order. Blocks nested in lists or quotes are examples, not policy.
 * Throws on an unclosed fence of any language: it would swallow every block after it unnoticed.
 */
function yamlBlocks(markdown: string, file: string): Block[] {
	// marked normalizes line endings itself; doing it first keeps our offsets aligned with its raws.
	const src = markdown.replace(/\r\n?/g, "\n");
	const lineAt = (offset: number) => src.slice(0, offset).split("\n").length;
	const blocks: Block[] = [];
	let offset = 0;
	for (const token of lexer(src)) {
		const at = src.indexOf(token.raw, offset);
		const start = at < 0 ? offset : at;
		offset = start + token.raw.length;
		if (token.type !== "code" || token.codeBlockStyle === "indented") continue;
		const fence = lineAt(start + Math.max(0, token.raw.search(/\S/)));
		const lines = token.raw.trim().split("\n");
		const open = FENCE.exec(lines[0] ?? "")?.[1] ?? "```";
		const close = lines.length > 1 ? lines[lines.length - 1]?.trim() : undefined;
		const isYaml = (token.lang ?? "").split(/\s+/)[0] === "yaml";
		if (!close || close[0] !== open[0] || !/^(`+|~+)$/.test(close) || close.length < open.length) {
			const detail = isYaml
				? "unterminated yaml fence"
				: `unterminated code fence '${lines[0]?.trim()}' (any yaml block after it would be ignored)`;
			throw new PolicyError(file, fence, `${detail}: close it with a ${open} line`);
		}
		if (isYaml) blocks.push({ fence, text: token.text });
	}
	return blocks;
}

/** One block's data, checked against the policy's shape. */
function parseBlock(block: Block, file: string): unknown {
	const fail = (line: number, detail: string): never => {
		throw new PolicyError(file, line, detail);
	};
	const { data, lineOf } = readYaml(block.text, block.fence, fail);
	check(data, SHAPE, [], (path, detail) => fail(lineOf(path), detail));
	return data;
}

/** Deep merge where mappings merge key by key and anything else (lists included) replaces. */
function merge(base: unknown, over: unknown): unknown {
	if (over === undefined || (over === null && isPlainObject(base))) return base;
	if (!isPlainObject(base) || !isPlainObject(over)) return over;
	const out: Record<string, unknown> = { ...base };
	for (const [key, value] of Object.entries(over)) out[key] = merge(base[key], value);
	return out;
}

const BLANK_PROFILE: Profile = {
	required_roles: [],
	tests_required: false,
	human_approval_required: false,
	security_veto_blocks: false,
	security_approval_required: false,
	rollback_plan_required: false,
	tests_sandbox_required: false,
};

/** Fills the fields a merged tree leaves out; a null quorum means "this profile sets none". */
function toPolicy(tree: Record<string, unknown>): Policy {
	const t = structuredClone(tree) as unknown as Policy & { consensus: Record<string, Partial<Profile>> };
	const consensus: Record<string, Profile> = {};
	for (const name of PROFILE_NAMES) {
		const profile: Profile = { ...BLANK_PROFILE, required_roles: [], ...t.consensus[name] };
		if (profile.approvals_required == null) delete profile.approvals_required;
		if (profile.blockers_allowed == null) delete profile.blockers_allowed;
		consensus[name] = profile;
	}
	return { consensus, risk: t.risk, commands: t.commands, architecture: t.architecture };
}

/** The built-in policy, from DEFAULT_POLICY (the same values `init` writes). A fresh copy. */
export function defaultPolicy(): Policy {
	return toPolicy(DEFAULT_POLICY);
}

export const POLICY_PATH = "POLICIES.ROUNDTABLE.md";

/** Parses policy Markdown (fenced yaml blocks) merged over the defaults. Throws PolicyError. */
export function parsePolicy(markdown: string, file = POLICY_PATH): Policy {
	let tree: unknown = DEFAULT_POLICY;
	for (const block of yamlBlocks(markdown, file)) tree = merge(tree, parseBlock(block, file));
	return toPolicy(tree as Record<string, unknown>);
}
