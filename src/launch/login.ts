// An agent CLI's login inside its sandbox: a private copy of only the files its login needs, in the
// session's private $HOME. At exit only the credential files are written back (OAuth refresh tokens
// rotate, and the next session needs the new one); settings, config and hook files never are, so
// nothing the agent plants there reaches the operator's own CLI. One session at a time per adapter
// uses a copied login (a lock held for the session's life); with an API key in the environment none
// is copied and sessions run side by side.
import {
	copyFileSync,
	existsSync,
	lstatSync,
	mkdirSync,
	readFileSync,
	renameSync,
	rmSync,
	statSync,
	writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { type HeldLock, tryLock } from "../os/lock.ts";
import { runtimeDir } from "../sessions/paths.ts";

interface LoginSpec {
	/** The variable that moves the CLI's folder, and the folder's default under $HOME. */
	dirVariable: string;
	defaultDir: string;
	/** Files in that folder: written back at exit. */
	credentials: string[];
	/** Files in that folder, then files under $HOME: copied in, never written back. */
	state: string[];
	homeState: string[];
	/** With any of these set, the CLI needs no login files. */
	keys: string[];
}

const LOGINS: Record<string, LoginSpec> = {
	codex: {
		dirVariable: "CODEX_HOME",
		defaultDir: ".codex",
		credentials: ["auth.json"],
		state: [],
		homeState: [],
		keys: ["OPENAI_API_KEY"],
	},
	claude: {
		dirVariable: "CLAUDE_CONFIG_DIR",
		defaultDir: ".claude",
		credentials: [".credentials.json"],
		state: [".claude.json"],
		homeState: [".claude.json"],
		keys: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
	},
	gemini: {
		dirVariable: "GEMINI_CLI_HOME",
		defaultDir: ".gemini",
		credentials: ["oauth_creds.json"],
		state: ["google_accounts.json"],
		homeState: [],
		keys: ["GEMINI_API_KEY", "GOOGLE_API_KEY"],
	},
};

const MAX_CREDENTIAL_BYTES = 1 << 20;

const isJson = (bytes: Buffer) => {
	try {
		JSON.parse(bytes.toString("utf8"));
		return true;
	} catch {
		return false;
	}
};

export class LoginBusy extends Error {
	override name = "LoginBusy";
}

export interface CopiedLogin {
	/** Variables for the agent: the CLI's folder variable pointed at its copy inside. */
	env: Record<string, string>;
	/** Files copied in, relative to the private home. */
	copied: string[];
	/** Writes changed credential files back, then lets the next session copy the login. */
	finish(): void;
}

/**
 * Whether every folder on the way from `base` to `rel`'s file is a real folder, never a link. The
 * private home outlives its agent (the CLI's state is kept), so what the agent left there may be a
 * link to the operator's own files: followed, a copy would overwrite them and a clean-up delete them.
 */
function realFolders(base: string, rel: string): boolean {
	let at = base;
	for (const part of [
		".",
		...dirname(rel)
			.split("/")
			.filter((p) => p !== "." && p !== ""),
	]) {
		at = join(at, part);
		const st = lstatSync(at, { throwIfNoEntry: false });
		if (st && !st.isDirectory()) return false;
		if (!st) return true; // made below, by us
	}
	return true;
}

/**
 * Removes what the agent left in the way of the `kind` at `rel` under `base`: a link (never what it
 * points to), a file where a folder goes, a folder where the file goes.
 */
function clearWay(base: string, rel: string, kind: "file" | "folder"): void {
	let at = base;
	const parts = rel.split("/").filter(Boolean);
	for (const [i, part] of parts.entries()) {
		at = join(at, part);
		const st = lstatSync(at, { throwIfNoEntry: false });
		if (!st) return;
		const wantsFile = kind === "file" && i === parts.length - 1;
		if (st.isSymbolicLink() || (wantsFile ? !st.isFile() : !st.isDirectory())) {
			rmSync(at, { recursive: true, force: true });
			return;
		}
	}
}

/**
 * Copies `adapter`'s login from the operator's home into `privateHome` (which the sandbox shows as
 * `homeInside`). `env` is the operator's environment (where CODEX_HOME and the like point).
 */
export function copyLogin(
	adapter: string,
	env: Record<string, string | undefined>,
	operatorHome: string,
	privateHome: string,
	homeInside: string,
): CopiedLogin {
	const spec = LOGINS[adapter];
	if (!spec) return { env: {}, copied: [], finish: () => {} };
	const insideDir = join(homeInside, spec.defaultDir);
	const moved = { [spec.dirVariable]: insideDir };
	if (!realFolders(privateHome, ".")) throw new Error(`the agent's home ${privateHome} is not a folder`);
	// The CLI's folder exists in the private home even when no login is copied (Codex insists).
	clearWay(privateHome, spec.defaultDir, "folder");
	mkdirSync(join(privateHome, spec.defaultDir), { recursive: true, mode: 0o700 });
	if (spec.keys.some((k) => env[k])) return { env: moved, copied: [], finish: () => {} };
	const hostDir = env[spec.dirVariable] || join(operatorHome, spec.defaultDir);
	const files = [
		...[...spec.credentials, ...spec.state].map((f) => ({
			from: join(hostDir, f),
			to: join(spec.defaultDir, f),
		})),
		...spec.homeState.map((f) => ({ from: join(operatorHome, f), to: f })),
	].filter((f) => existsSync(f.from) && statSync(f.from).isFile());
	if (files.length === 0) return { env: moved, copied: [], finish: () => {} };
	const lock: HeldLock | undefined = tryLock(join(runtimeDir(), `login-${adapter}.lock`));
	if (!lock)
		throw new LoginBusy(
			`another session is using the ${adapter} login (its refresh token rotates, so one session at a time uses it); run several at once with ${spec.keys[0]} set`,
		);
	const original = new Map<string, Buffer>();
	for (const f of files) {
		const to = join(privateHome, f.to);
		clearWay(privateHome, f.to, "file");
		mkdirSync(dirname(to), { recursive: true, mode: 0o700 });
		copyFileSync(f.from, to);
		original.set(f.to, readFileSync(to));
	}
	return {
		env: moved,
		copied: files.map((f) => f.to),
		finish() {
			try {
				for (const name of spec.credentials) {
					const rel = join(spec.defaultDir, name);
					const before = original.get(rel);
					const copy = join(privateHome, rel);
					// A regular file of a credential's size holding JSON, in real folders: never a link the
					// agent planted, to the file or a folder on the way (its agent has exited: nothing moves now).
					if (!realFolders(privateHome, rel)) continue;
					const stat = lstatSync(copy, { throwIfNoEntry: false });
					if (!before || !stat?.isFile() || stat.size > MAX_CREDENTIAL_BYTES) continue;
					const after = readFileSync(copy);
					if (after.equals(before) || !isJson(after)) continue;
					// Atomically, beside the original, so a crash leaves the old login or the new one.
					const target = join(hostDir, name);
					const temp = `${target}.roundtable-${process.pid}`;
					writeFileSync(temp, after, { mode: 0o600 });
					renameSync(temp, target);
				}
			} finally {
				// The home is kept for the CLI's state; a credential never rests in it between runs. What the
				// agent put in the way is removed itself, never what it points to.
				for (const name of spec.credentials) {
					const rel = join(spec.defaultDir, name);
					if (realFolders(privateHome, rel)) rmSync(join(privateHome, rel), { force: true });
					else clearWay(privateHome, rel, "file");
				}
				lock.release();
			}
		},
	};
}
