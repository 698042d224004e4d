// peer.list: whom a question or message can be addressed to. Every configured agent (enabled or
// not, and whether a live session holds it) and `operator`, the person running the table. The
// operator is listed with role "operator", enabled, and never live: no session ever holds it, and
// what is addressed to it waits in its inbox until the person looks.
import type { Env } from "../handlers/env.ts";
import { cursorKey, page } from "../handlers/paging.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { OPERATOR } from "./actor.ts";

const DEFAULT_LIMIT = 200;

interface Peer {
	id: string;
	role: string;
	enabled: boolean;
	live: boolean;
}

export async function list(tx: Tx, a: Args<"peer.list">, env: Env) {
	const limit = a.limit ?? DEFAULT_LIMIT;
	const after = a.cursor === undefined ? undefined : (cursorKey(a.cursor, ["string"])[0] as string);
	const live = new Set(await tx.sessions.liveAgentIds(env.now));
	// The agents are the configured few, so they are read whole and paged here by id.
	const everyone: Peer[] = [
		{ id: OPERATOR, role: "operator", enabled: true, live: false },
		...(await tx.agents.list()).map((agent) => ({
			id: agent.id,
			role: agent.role,
			enabled: agent.enabled,
			live: live.has(agent.id),
		})),
	].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
	const rest = after === undefined ? everyone : everyone.filter((peer) => peer.id > after);
	const { rows, next } = page(rest.slice(0, limit + 1), limit, (peer) => [peer.id]);
	return { peers: rows, next_cursor: next };
}
