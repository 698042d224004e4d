// Real MCP clients for the tests: pinned npm packages installed once into a cache folder outside
// the checkout (so a clean clone reuses them and `npm test` works anywhere), an environment with
// throwaway homes and no bun on PATH, and processes that are always bounded and killed.
// Run as a script (`bun test/real-clients-helpers.ts`), it pre-installs every client (.ci/run).
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";
import type { Subprocess } from "bun";
import { bounded, killGroup } from "./subprocess.ts";

export { bounded };

export interface Pinned {
	pkg: string;
	version: string;
	bin: string;
}

/** Exact versions: a client's behaviour (trust files, output wording) changes between releases. */
export const PINNED = {
	codex: { pkg: "@openai/codex", version: "0.171.0", bin: "codex" },
	claude: { pkg: "@anthropic-ai/claude-code", version: "2.1.332", bin: "claude" },
	// v2 of the inspector; it wants Node >= 22.19, so the tests run it under Bun (see inspectorArgv).
	inspector: { pkg: "@modelcontextprotocol/inspector", version: "2.12.0", bin: "mcp-inspector" },
} satisfies Record<string, Pinned>;
export type ClientName = keyof typeof PINNED;

/** ROUNDTABLE_TEST_CLIENTS, else $XDG_CACHE_HOME/roundtable-test-clients, else ~/.cache/…. */
export function cacheRoot(): string {
	const xdg = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
	return process.env.ROUNDTABLE_TEST_CLIENTS || join(xdg, "roundtable-test-clients");
}

export type Installed =
	| { kind: "ok"; bin: string; seconds: number; reused: boolean }
	| { kind: "skip"; reason: string }
	| { kind: "error"; message: string };

const MARKER = ".roundtable-installed";

const tail = (s: string, n = 1500) => (s.length > n ? `…${s.slice(-n)}` : s);

/** Why npm's configured registry cannot be reached, or undefined when it answers. */
async function registryDown(): Promise<string | undefined> {
	const r = await bounded(["npm", "ping", "--fetch-timeout=15000", "--fetch-retries=0"], { ms: 30_000 });
	if (r.code === 0) return undefined;
	if (r.timedOut) return "npm ping timed out";
	const errors = r.stderr.split("\n").filter((l) => l.startsWith("npm error "));
	return `npm ping: ${
		errors
			.slice(0, 2)
			.map((l) => l.slice("npm error ".length))
			.join("; ") || `exit ${r.code}`
	}`;
}

/**
 * `npm install --prefix <cache>/<name>@<version> <pkg>@<version>`, unless a finished install is
 * there already (the marker is written last, so a half-done one is redone). A registry that cannot
 * be reached is a skip (asked first: npm's own retries would take minutes); any other failure is an
 * error.
 */
export async function install(name: ClientName): Promise<Installed> {
	const { pkg, version, bin } = PINNED[name];
	const spec = `${pkg}@${version}`;
	const prefix = join(cacheRoot(), `${name}@${version}`);
	const binPath = join(prefix, "node_modules", ".bin", bin);
	const marker = join(prefix, MARKER);
	if (existsSync(marker) && readFileSync(marker, "utf8") === spec && existsSync(binPath))
		return { kind: "ok", bin: binPath, seconds: 0, reused: true };
	const unreachable = async () => {
		const down = await registryDown();
		return (
			down && {
				kind: "skip" as const,
				reason: `${spec} is not in ${cacheRoot()} and the npm registry cannot be reached (${down})`,
			}
		);
	};
	const skip = await unreachable();
	if (skip) return skip;
	rmSync(prefix, { recursive: true, force: true });
	mkdirSync(prefix, { recursive: true });
	const started = performance.now();
	const r = await bounded(["npm", "install", "--no-audit", "--no-fund", "--prefix", prefix, spec], {
		ms: 10 * 60_000,
	});
	const seconds = (performance.now() - started) / 1000;
	if (r.code === 0 && existsSync(binPath)) {
		writeFileSync(marker, spec);
		return { kind: "ok", bin: binPath, seconds, reused: false };
	}
	rmSync(prefix, { recursive: true, force: true });
	return (
		(await unreachable()) || {
			kind: "error",
			message: `npm install ${spec} ${r.timedOut ? "timed out" : `exited ${r.code}`}${r.code === 0 ? ` but left no ${binPath}` : ""}: ${tail(r.stderr || r.stdout)}`,
		}
	);
}

/** PATH without any folder that holds bun or bunx (node_modules/.bin included, as npm test adds it). */
export function pathWithoutBun(path = process.env.PATH ?? ""): string {
	return path
		.split(delimiter)
		.filter((dir) => dir !== "" && !["bun", "bunx"].some((b) => existsSync(join(dir, b))))
		.join(delimiter);
}

/**
 * A client's whole environment, built from nothing so no global setting leaks in: throwaway homes
 * under `home`, no bun on PATH, and Claude Code's background traffic and updater off.
 */
export function clientEnv(home: string): Record<string, string> {
	return {
		PATH: pathWithoutBun(),
		HOME: home,
		USER: process.env.USER ?? "roundtable-test",
		LANG: "C.UTF-8",
		XDG_CONFIG_HOME: join(home, ".config"),
		XDG_CACHE_HOME: join(home, ".cache"),
		XDG_DATA_HOME: join(home, ".local", "share"),
		CODEX_HOME: join(home, ".codex"),
		CLAUDE_CONFIG_DIR: join(home, ".claude"),
		CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
		DISABLE_AUTOUPDATER: "1",
	};
}

/**
 * A client that speaks JSON-RPC in lines on stdio (Codex's `app-server`), in its own process group.
 * Every request is bounded; `close()` kills the group, the MCP servers it started included.
 */
export class LineRpc {
	private readonly proc: Subprocess<"pipe", "pipe", "pipe">;
	private readonly pending = new Map<number, (message: Record<string, unknown>) => void>();
	private nextId = 0;
	private stderrText = "";
	readonly notifications: Record<string, unknown>[] = [];

	constructor(argv: string[], options: { cwd: string; env: Record<string, string> }) {
		const proc = Bun.spawn(argv, {
			...options,
			stdin: "pipe",
			stdout: "pipe",
			stderr: "pipe",
			detached: true,
		});
		this.proc = proc;
		void this.read();
		void (async () => {
			for await (const chunk of proc.stderr) this.stderrText += new TextDecoder().decode(chunk);
		})();
	}

	private async read() {
		let buffer = "";
		for await (const chunk of this.proc.stdout) {
			buffer += new TextDecoder().decode(chunk);
			for (let cut = buffer.indexOf("\n"); cut >= 0; cut = buffer.indexOf("\n")) {
				const message = JSON.parse(buffer.slice(0, cut)) as Record<string, unknown>;
				buffer = buffer.slice(cut + 1);
				const answer = typeof message.id === "number" ? this.pending.get(message.id) : undefined;
				if (answer && !("method" in message)) answer(message);
				else this.notifications.push(message);
			}
		}
	}

	notify(method: string, params?: unknown) {
		this.proc.stdin.write(`${JSON.stringify({ method, ...(params === undefined ? {} : { params }) })}\n`);
		this.proc.stdin.flush();
	}

	/** The result of `method`; rejects on a JSON-RPC error, the client's exit, or after `ms`. */
	async request(method: string, params: unknown, ms = 20_000): Promise<Record<string, unknown>> {
		const id = ++this.nextId;
		const answered = new Promise<Record<string, unknown>>((resolve) => this.pending.set(id, resolve));
		this.proc.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
		this.proc.stdin.flush();
		const message = await Promise.race([
			answered,
			this.proc.exited.then(() => "exited" as const),
			Bun.sleep(ms).then(() => "timeout" as const),
		]);
		this.pending.delete(id);
		if (typeof message === "string" || message.error !== undefined) {
			const why = typeof message === "string" ? message : JSON.stringify(message.error);
			throw new Error(`${method}: ${why}; stderr: ${tail(this.stderrText)}`);
		}
		return message.result as Record<string, unknown>;
	}

	/** Ends stdin as a user's editor would, then kills what is left of the group after 3 s at most. */
	async close() {
		this.proc.stdin.end();
		await Promise.race([this.proc.exited, Bun.sleep(3000)]);
		killGroup(this.proc.pid);
		await this.proc.exited;
	}
}

if (import.meta.main) {
	// .ci/run's pre-install: one line per client; the tests themselves decide skip or failure.
	const results = await Promise.all(
		(Object.keys(PINNED) as ClientName[]).map(async (name) => [name, await install(name)] as const),
	);
	for (const [name, r] of results) {
		const spec = `${PINNED[name].pkg}@${PINNED[name].version}`;
		if (r.kind === "ok")
			console.log(`${spec}: ${r.reused ? "reused" : `installed in ${r.seconds.toFixed(1)} s`} (${r.bin})`);
		else console.log(`${spec}: ${r.kind === "skip" ? r.reason : r.message}`);
	}
}
