// A proposal's patch before it is recorded: checked (it parses, every path a plain repository path)
// and stored by content outside any transaction; then the affected resources it implies, which the
// author's write or exclusive claims must all cover.
import { isPathType, parseCanonicalId } from "../domain/claims.ts";
import { mergeAffected, scopeOfId, uncovered } from "../domain/coverage.ts";
import { type ParsedPatch, PatchError, parsePatch, touchedPaths } from "../domain/patch.ts";
import type { Env } from "../engine/env.ts";
import { scopeOfResource, writeClaimsOf } from "../engine/records.ts";
import { failedPrecondition, invalidArgument } from "../errors.ts";
import { storePatch } from "../patches.ts";
import { RepoGuard } from "../repo/guard.ts";
import type { Tx } from "../store/index.ts";

/** A patch checked and stored (by content) before the transaction that records it. */
export interface PreparedPatch {
	sha256: string;
	size: number;
	strip: number;
	files: string[];
}

/** The prepare phase of proposal.create and proposal.attach_patch. */
export async function preparePatch(a: { patch: string }, env: Env): Promise<PreparedPatch> {
	const root = env.rt.root;
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
		// Every path must name a place inside the repository, outside .git/ and .roundtable/.
		if (guard.relative(path, "patch") !== path) {
			throw invalidArgument(`the patch names '${path}', which is not a plain repository path`, {
				field: "patch",
			});
		}
	}
	return { ...storePatch(root, a.patch), strip: parsed.strip, files };
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
			`unclaimed affected resource: ${missing[0]} (claim it with resource.claim, write or exclusive)`,
			{
				resource_id: missing[0],
				unclaimed: missing,
			},
		);
	}
	return ids;
}
