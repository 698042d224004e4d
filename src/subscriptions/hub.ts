// Subscriptions to Roundtable's resources (./resources.ts) and the one loop that serves them: while
// any stands, it follows the table with a waiting table.watch (woken by this process's commits and,
// by their datagrams, other processes': src/os/wake.ts), and tells each subscriber of each event
// that changes what it subscribed to, once, in event order. A subscription is allowed only after the
// caller read the resource itself, so it hears only of what it may read; an inbox is its own. It also
// carries word that a list (tools, prompts) changed to the sessions that asked to hear it.
import { type CallContext, type Caller, systemContext } from "../context.ts";
import { ToolError } from "../errors.ts";
import type { EventRecord } from "../vocabulary/records.ts";
import { inboxOf, parseUri, readResource, subscriptionUri, touchedBy } from "./resources.ts";

/** Subscriptions one session may hold at once. */
export const SUBSCRIPTIONS_PER_SESSION = 256;

/** The lists a server may say have changed, to whoever listens for it. */
export type ListKind = "tools" | "prompts";

/** Told of an event that changed a subscribed resource. */
export type Notify = (uri: string, eventId: number) => void;

interface Subscription {
	/** Whose inbox, for an inbox subscription. */
	inbox: string;
	/** The capability's session, for an agent: when it ends, so does what it subscribed to. */
	capability?: string;
	/** When that capability lapses, if it does (ISO time). */
	expires?: string;
	notify: Notify;
}

interface Ender {
	/** The capability's session. */
	capability: string;
	ended: () => void;
	/** The timer that ends it when its time is up. */
	lapse?: Timer;
}

/** The longest delay setTimeout holds. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** The events that end a capability's session, after which it may read nothing. */
const ENDS_CAPABILITY = new Set(["session.revoked", "session.closed", "session.ended"]);

/** One page of events the loop reads at a time, and how long one wait lasts. */
const PAGE = 200;
const WAIT_MS = 30_000;

export class Hub {
	/** Per session (any object its transport keeps for it): its subscriptions by URI. */
	private readonly sessions = new Map<object, Map<string, Subscription>>();
	/** Per session: the lists it hears changes of, and how it is told. */
	private readonly listeners = new Map<object, { lists: Set<ListKind>; notify: (list: ListKind) => void }>();
	/** Per session opened with a capability: what to do when that ends (a listen ends its stream). */
	private readonly enders = new Map<object, Ender>();
	private after: number | undefined;
	private running: Promise<void> | undefined;
	private readonly stopped = new AbortController();

	constructor(private readonly call: Caller) {}

	/**
	 * Subscribes `session` to `uri`, once the caller has read it (its rights are the reading tool's):
	 * `invalid_argument` for a URI that names none of ours, the reading tool's error otherwise, and
	 * `resource_exhausted` past SUBSCRIPTIONS_PER_SESSION.
	 */
	async subscribe(session: object, uri: string, ctx: CallContext, notify: Notify): Promise<void> {
		const r = parseUri(uri);
		const echoed = { uri: uri.slice(0, 200) };
		if (!r) throw new ToolError("invalid_argument", `no such resource: ${echoed.uri}`, echoed);
		// `?after=` reads a page of a run's events; what is subscribed to is the run's events themselves.
		if (r.kind === "run" && r.after !== 0)
			throw new ToolError("invalid_argument", `subscribe to ${subscriptionUri(r)}, without ?after=`, echoed);
		const key = subscriptionUri(r);
		const mine = this.sessions.get(session) ?? new Map<string, Subscription>();
		// Already held by this session: its caller read it, and a session's rights do not widen.
		if (mine.has(key)) return;
		if (mine.size >= SUBSCRIPTIONS_PER_SESSION)
			throw new ToolError(
				"resource_exhausted",
				`this session already holds ${SUBSCRIPTIONS_PER_SESSION} subscriptions, the most one may; unsubscribe from one first`,
				{ limit: SUBSCRIPTIONS_PER_SESSION },
			);
		// Where the loop starts is fixed before the read, so nothing committed after it is missed.
		await this.startingPoint();
		await readResource(this.call, r, ctx);
		const agent = ctx.principal.kind === "agent" ? ctx.principal : undefined;
		mine.set(key, {
			inbox: inboxOf(ctx.principal),
			notify,
			...(agent && { capability: agent.session_id }),
			...(agent?.expires_at && { expires: agent.expires_at }),
		});
		this.sessions.set(session, mine);
		this.running ??= this.follow().finally(() => {
			this.running = undefined;
		});
	}

	unsubscribe(session: object, uri: string): void {
		const r = parseUri(uri);
		const mine = this.sessions.get(session);
		if (!r || !mine) return;
		mine.delete(subscriptionUri(r));
		if (mine.size === 0) this.sessions.delete(session);
	}

	/** The session ended: its subscriptions go with it. */
	drop(session: object): void {
		this.sessions.delete(session);
		this.listeners.delete(session);
		clearTimeout(this.enders.get(session)?.lapse);
		this.enders.delete(session);
	}

	/**
	 * Calls `ended` when the capability `session` was opened with ends: revoked, closed, ended, or
	 * lapsed (its time is up, which no event tells).
	 */
	onCapabilityEnd(session: object, principal: CallContext["principal"], ended: () => void): void {
		if (principal.kind !== "agent") return;
		const ender: Ender = { capability: principal.session_id, ended };
		this.enders.set(session, ender);
		if (principal.expires_at !== undefined) this.lapseAt(session, ender, Date.parse(principal.expires_at));
	}

	/** Ends `session` once its capability's time is up (a timer holds ~24.8 days at most: it looks again then). */
	private lapseAt(session: object, ender: Ender, at: number): void {
		const left = at - Date.now();
		if (left <= 0) {
			this.drop(session);
			ender.ended();
			return;
		}
		ender.lapse = setTimeout(() => this.lapseAt(session, ender, at), Math.min(left, MAX_TIMER_MS));
		ender.lapse.unref();
	}

	/** Tells `session` of each change to one of `lists` from now on (until it is dropped). */
	hearLists(session: object, lists: Set<ListKind>, notify: (list: ListKind) => void): void {
		if (lists.size > 0) this.listeners.set(session, { lists, notify });
	}

	/**
	 * A list changed: each session that hears of it is told, once. Roundtable's own lists change only
	 * with the program (a role's tools are fixed while it runs), so only a served extension says so.
	 */
	listChanged(list: ListKind): void {
		for (const l of this.listeners.values()) if (l.lists.has(list)) l.notify(list);
	}

	/** Ends the loop (the transport closes). */
	close(): void {
		this.sessions.clear();
		this.listeners.clear();
		this.enders.clear();
		this.stopped.abort();
	}

	private async startingPoint(): Promise<void> {
		if (this.after !== undefined) return;
		const state = (await this.call("table.get_state", {}, systemContext())) as { last_event_id: number };
		this.after ??= state.last_event_id;
	}

	private async follow(): Promise<void> {
		const ctx = { ...systemContext(), signal: this.stopped.signal };
		while (this.sessions.size > 0 && !this.stopped.signal.aborted) {
			let page: { events: EventRecord[]; next_after_event_id: number };
			try {
				page = (await this.call(
					"table.watch",
					{ after_event_id: this.after ?? 0, limit: PAGE, wait_ms: WAIT_MS },
					ctx,
				)) as typeof page;
			} catch {
				if (this.stopped.signal.aborted) return;
				await Bun.sleep(1000); // the store is briefly unwell: look again soon
				continue;
			}
			for (const e of page.events) this.dispatch(e);
			this.after = page.next_after_event_id;
			// A wait that ended empty at once (the owner stops): do not spin until this hub is closed.
			if (page.events.length === 0) await Bun.sleep(50);
		}
		// Nobody listens now: the next subscription starts from what is new then.
		this.after = undefined;
	}

	private dispatch(e: EventRecord): void {
		if (ENDS_CAPABILITY.has(e.type)) this.endCapability((e.payload as { session_id?: unknown }).session_id);
		const touched = touchedBy(e);
		if (touched.length === 0) return;
		const now = new Date().toISOString();
		for (const [session, mine] of this.sessions)
			for (const t of touched) {
				const s = mine.get(t.uri);
				if (!s || (t.inbox !== undefined && t.inbox !== s.inbox)) continue;
				// A capability whose time is up hears nothing more, and keeps no subscription.
				if (s.expires !== undefined && s.expires <= now) {
					this.drop(session);
					break;
				}
				s.notify(t.uri, e.id);
			}
	}

	/**
	 * A capability's session ended: it may read nothing now, so it hears of nothing either. Its
	 * subscriptions go (a session keeps none but its own caller's), and a listen's stream ends.
	 */
	private endCapability(sessionId: unknown): void {
		if (typeof sessionId !== "string") return;
		for (const [session, e] of this.enders)
			if (e.capability === sessionId) {
				this.drop(session);
				e.ended();
			}
		for (const [session, mine] of this.sessions)
			if ([...mine.values()].some((s) => s.capability === sessionId)) this.drop(session);
	}
}
