// Who may open the dashboard, kept in the owner's memory: the one-time login token made when the
// owner starts (the `roundtable dashboard:` line prints it), the operator's tokens, the sessions
// a login opens (at most a few dozen, each for 12 hours), and the CSRF token bound to each session
// (an HMAC of its id with a key made per process). A capability is none of these: it never logs in.
import { createHmac, randomBytes } from "node:crypto";
import { sameSecret } from "../../transports/http-guard.ts";

export const SESSION_COOKIE = "rt_session";
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const MAX_SESSIONS = 32;

const sha256 = (s: string) => new Bun.CryptoHasher("sha256").update(s).digest("hex");
const random = () => randomBytes(32).toString("base64url");

export interface AuthOptions {
	operatorTokens: readonly string[];
	maxSessions?: number;
	ttlMs?: number;
	/** The clock, for tests of expiry. */
	now?: () => number;
}

export class DashboardAuth {
	/** Good for one login, then spent; a new owner start makes a new one. */
	readonly loginToken = random();
	private loginTokenSpent = false;
	private readonly csrfKey = randomBytes(32);
	/** By the sha256 of the session id (the cookie's value), in the order they were opened. */
	private readonly sessions = new Map<string, number>();
	private readonly now: () => number;
	private readonly maxSessions: number;
	private readonly ttlMs: number;

	constructor(private readonly options: AuthOptions) {
		this.now = options.now ?? Date.now;
		this.maxSessions = options.maxSessions ?? MAX_SESSIONS;
		this.ttlMs = options.ttlMs ?? SESSION_TTL_MS;
	}

	/**
	 * A new session's id when `token` is one of the operator's tokens or the unspent one-time token
	 * (which this spends); undefined for anything else, a capability included.
	 */
	login(token: string): string | undefined {
		// Every secret is compared, whatever matched before: no timing tells which one did.
		let operator = false;
		for (const t of this.options.operatorTokens) operator = sameSecret(token, t) || operator;
		const once = sameSecret(token, this.loginToken) && !this.loginTokenSpent;
		if (!operator && !once) return undefined;
		if (once) this.loginTokenSpent = true;
		this.sweep();
		// At the cap, the oldest session makes room: a login always succeeds.
		while (this.sessions.size >= this.maxSessions) {
			const oldest = this.sessions.keys().next().value as string;
			this.sessions.delete(oldest);
		}
		const id = random();
		this.sessions.set(sha256(id), this.now() + this.ttlMs);
		return id;
	}

	/** The live session a request's cookie names, or undefined. */
	session(req: Request): string | undefined {
		for (const id of cookieValues(req.headers.get("cookie"), SESSION_COOKIE)) if (this.alive(id)) return id;
		return undefined;
	}

	/** Whether a session is still open and unexpired. */
	alive(id: string): boolean {
		const key = sha256(id);
		const expires = this.sessions.get(key);
		if (expires === undefined) return false;
		if (expires > this.now()) return true;
		this.sessions.delete(key);
		return false;
	}

	logout(id: string): void {
		this.sessions.delete(sha256(id));
	}

	/** The CSRF token of a session: the same for its whole life, useless with any other session. */
	csrfToken(id: string): string {
		return createHmac("sha256", this.csrfKey).update(id).digest("base64url");
	}

	csrfOk(id: string, given: string | null): boolean {
		return given !== null && sameSecret(given, this.csrfToken(id));
	}

	/** The Set-Cookie value that opens a session (Secure over TLS). */
	cookie(id: string, tls: boolean): string {
		const maxAge = Math.floor(this.ttlMs / 1000);
		return `${SESSION_COOKIE}=${id}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}${tls ? "; Secure" : ""}`;
	}

	/** The Set-Cookie value that removes it. */
	clearCookie(tls: boolean): string {
		return `${SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0${tls ? "; Secure" : ""}`;
	}

	private sweep(): void {
		const now = this.now();
		for (const [key, expires] of this.sessions) if (expires <= now) this.sessions.delete(key);
	}
}

/** Every value of cookie `name` in a Cookie header. */
export function cookieValues(header: string | null, name: string): string[] {
	if (!header) return [];
	const values: string[] = [];
	for (const part of header.split(";")) {
		const eq = part.indexOf("=");
		if (eq !== -1 && part.slice(0, eq).trim() === name) values.push(part.slice(eq + 1).trim());
	}
	return values;
}
