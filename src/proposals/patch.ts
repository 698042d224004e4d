// A proposal's patch before it is recorded: checked (it parses, every path a plain repository path)
// and stored by content outside any transaction; then the affected resources it implies, which the
// author's write or exclusive claims must all cover.
import { dirname, isAbsolute, join, normalize } from "node:path";
import { isPathType, parseCanonicalId } from "../domain/claims.ts";
import { mergeAffected, scopeOfId, uncovered } from "../domain/coverage.ts";
import { type ParsedPatch, PatchError, type PatchFile, parsePatch, touchedPaths } from "../domain/patch.ts";
import { failedPrecondition, invalidArgument, ToolError } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { scopeOfResource, writeClaimsOf } from "../handlers/records.ts";
import { storePatch } from "../patches.ts";
import { RepoGuard } from "../repo/guard.ts";
import type { Tx } from "../store/index.ts";
import { protectedSegment } from "./protected-names.ts";

/** A patch checked and stored (by content) before the transaction that records it. */
export interface PreparedPatch {
	sha256: string;
	size: number;
	strip: number;
	files: string[];
	/** What each touched path held where the patch was made (a workspace's base); none for a hand-written one. */
	base?: Record<string, string>;
}

/** The prepare phase of proposal.create and proposal.attach_patch. */
export async function preparePatch(a: { patch: string }, env: Env): Promise<PreparedPatch> {
	const root = env.rt.root;
	const max = env.rt.config.limits.max_patch_bytes;
	const size = Buffer.byteLength(a.patch);
	if (size > max) {
		throw new ToolError(
			"resource_exhausted",
			`the patch is ${size} bytes, more than limits.max_patch_bytes (${max}): split the change, or raise the limit`,
			{ field: "patch", limit: "limits.max_patch_bytes", max, size },
		);
	}
	let parsed: ParsedPatch;
	try {
		parsed = parsePatch(a.patch);
	} catch (err) {
		if (err instanceof PatchError) throw invalidArgument(err.message, { field: "patch", line: err.line });
		throw err;
	}
	const guard = new RepoGuard(root);
	const files = touchedPaths(parsed);
	for (const path of files) {
		// .git or .roundtable to some filesystem a checkout may live on (.GIT, GIT~1, .git.): never.
		const named = protectedSegment(path);
		if (named) {
			throw invalidArgument(
				`the patch names '${path}', whose '${named.segment}' is ${named.name} on some filesystems`,
				{ field: "patch", path },
			);
		}
		// Every path must name a place inside the repository, outside .git/ and .roundtable/.
		if (guard.relative(path, "patch") !== path) {
			throw invalidArgument(`the patch names '${path}', which is not a plain repository path`, {
				field: "patch",
				path,
			});
		}
	}
	for (const f of parsed.files) checkSymlink(f);
	return { ...storePatch(root, a.patch), strip: parsed.strip, files };
}

/**
 * A symbolic link the patch makes must point inside the project and at nothing of .git or
 * .roundtable (a link to ../.roundtable/operator.token would hand a later reader the token). A link
 * that passes still raises the security review (gates: the security profile).
 */
function checkSymlink(f: PatchFile): void {
	if (!f.symlink || f.new_path === null) return;
	const target = f.added.map((a) => a.text).join("\n");
	const path = f.new_path;
	const refuse = (why: string) => {
		throw invalidArgument(`the patch makes '${path}' a symlink to '${target}', which ${why}`, {
			field: "patch",
			path,
			target,
		});
	};
	if (target === "" || target.includes("\0")) refuse("is empty");
	if (isAbsolute(target)) refuse("leaves the project (an absolute path)");
	const resolved = normalize(join(dirname(path), target));
	if (resolved === ".." || resolved.startsWith("../") || isAbsolute(resolved)) refuse("leaves the project");
	const named = protectedSegment(resolved) ?? protectedSegment(target);
	if (named) refuse(`names ${named.name}`);
}

/**
 * The affected resources: explicit ones plus every touched file nothing covers. Rows are made for
 * path resources not seen before; the author's live write/exclusive claims must cover them all.
 */
export async function affectedResources(
	tx: Tx,
	author: string,
	explicit: string[],
	files: string[],
	now: string,
): Promise<string[]> {
	const ids = mergeAffected(explicit, files);
	const scopes = [];
	for (const id of ids) {
		const row = await tx.resources.get(id);
		if (row) {
			scopes.push(scopeOfResource(row));
			continue;
		}
		const named = parseCanonicalId(id);
		if (!named || !isPathType(named.type)) {
			throw invalidArgument(
				`affected resource ${id} is unknown: claim it first, or name a file:, directory: or symbol: resource`,
				{
					field: "affected_resources",
					resource_id: id,
				},
			);
		}
		await tx.resources.upsert(
			{
				id,
				type: named.type,
				path: named.path,
				symbol: named.symbol,
				language: null,
				start_line: null,
				end_line: null,
				current_hash: "",
			},
			now,
		);
		scopes.push(scopeOfId(id));
	}
	const missing = uncovered(scopes, await writeClaimsOf(tx, author, now));
	if (missing.length > 0) {
		throw failedPrecondition(
			missing.length === 1
				? `unclaimed affected resource: ${missing[0]} (claim it with resource.claim, write or exclusive)`
				: `unclaimed affected resources: ${missing.join(", ")} (claim each with resource.claim, write or exclusive)`,
			{
				resource_id: missing[0],
				unclaimed: missing,
			},
		);
	}
	return ids;
}
