// Reading what is claimed: one resource with its live claims (resource.get), and resources found by
// path or symbol (resource.search). Neither changes anything.
import { clip, echo } from "../domain/text.ts";
import { notFound } from "../errors.ts";
import type { Env } from "../handlers/env.ts";
import { cursorKey, page } from "../handlers/paging.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";

/** resource.get: the resource, with its live (active and suspended) claims. */
export async function get(tx: Tx, a: Args<"resource.get">, env: Env) {
	const resource = await tx.resources.get(a.resource_id);
	if (!resource)
		throw notFound(`resource ${echo(a.resource_id)} not found`, { resource_id: clip(a.resource_id) });
	const live = [
		...(await tx.claims.list({ resource_id: resource.id, status: "active" }, undefined, 1000, env.now)),
		...(await tx.claims.list({ resource_id: resource.id, status: "suspended" }, undefined, 1000, env.now)),
	];
	return { resource, claims: live };
}

/** resource.search: resources whose path or symbol matches, a page at a time. */
export async function search(tx: Tx, a: Args<"resource.search">) {
	const limit = a.limit ?? 200;
	const after = a.cursor === undefined ? undefined : (cursorKey(a.cursor, ["string"])[0] as string);
	const rows = await tx.resources.search({ query: a.query, type: a.resource_type, after, limit: limit + 1 });
	const { rows: resources, next } = page(rows, limit, (r) => [r.id]);
	return { resources, next_cursor: next };
}
