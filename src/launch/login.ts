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
	// The CLI's folder exists in the private home even when no login is copied (Codex insists).
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
					// A regular file of a credential's size holding JSON, never a link the agent planted.
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
				// The home is kept for the CLI's state; a credential never rests in it between runs.
				for (const name of spec.credentials)
					rmSync(join(privateHome, spec.defaultDir, name), { force: true });
				lock.release();
			}
		},
	};
}
