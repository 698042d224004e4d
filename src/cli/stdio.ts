// `mcp stdio`: the bridge an MCP client launches. It finds the owner (owner.json, else the
// configured address), optionally starts one, then relays frames until stdin ends. It must start
// fast, so it imports neither the store nor the schema library.
import { existsSync, realpathSync } from "node:fs";
import { constants } from "node:os";
import { readOperatorToken } from "../config/operator-token.ts";
import { peekEndpoints } from "../config/peek.ts";
import { LAYOUT } from "../layout.ts";
import { startOwnerInBackground } from "../owner/background.ts";
import { findOwner } from "../owner/presence.ts";
import { isLoopbackHostname } from "../transports/http-guard.ts";
import { pipeToSocket } from "../transports/socket-pipe.ts";
import { runBridge } from "../transports/stdio.ts";
import { type Flags, UsageError } from "./args.ts";
import type { CommandRun } from "./command.ts";

const MAX_LINE_BYTES = 16 * 1024 * 1024;
const log = (line: string) => process.stderr.write(`roundtable mcp stdio: ${line}\n`);

function checkUrl(raw: string, token: string | undefined): URL {
	let url: URL;
	try {
		url = new URL(raw);
	} catch {
		throw new UsageError("--url is not a URL");
	}
	if (!/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash) {
		// The URL is not repeated: it may hold a password, and clients log stderr.
		throw new UsageError("--url must be a plain http(s) URL without credentials, query or fragment");
	}
	if (token && url.protocol === "http:" && !isLoopbackHostname(url.hostname)) {
		throw new Error(`a bearer token is only sent over https, except to a loopback address (${url.origin})`);
	}
	return url;
}

type Probe = "ok" | "absent" | "unauthorized";

async function probe(url: URL, token: string | undefined): Promise<Probe> {
	const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
	try {
		const res = await fetch(new URL("/healthz", url), { headers, signal: AbortSignal.timeout(1500) });
		if (res.status === 401) return "unauthorized";
		if (!res.ok && res.status !== 503) return "absent";
		// A loopback /healthz asks for no credential: a GET of /mcp outside a session says whether
		// the token is taken (401) or not (400: no session).
		const auth = await fetch(url, { headers, signal: AbortSignal.timeout(1500) });
		await auth.body?.cancel();
		return auth.status === 401 ? "unauthorized" : "ok";
	} catch {
		return "absent";
	}
}

/** Starts an owner in the background and waits until its HTTP endpoint takes our token. */
async function autostart(root: string, token: string | undefined): Promise<URL> {
	const owner = await startOwnerInBackground(
		root,
		// The owner makes the token when it initializes a new project.
		async (o) =>
			o.http_url !== null && (await probe(new URL(o.http_url), token ?? readOperatorToken(root))) === "ok",
	);
	return new URL(owner.http_url as string);
}

/** The owner's HTTP endpoint the bridge relays to, found (or started with --autostart); undefined after saying why not. */
async function ownerUrl(
	flags: Flags & { root: string },
): Promise<{ url: URL; token: string | undefined } | undefined> {
	if (!existsSync(flags.root)) throw new UsageError(`--root ${flags.root} does not exist`);
	const root = realpathSync(flags.root);
	// The operator's token: the environment's, else the project's own file.
	let token = process.env.ROUNDTABLE_MCP_TOKEN || readOperatorToken(root);
	const given = flags.url as string | undefined;
	const owner = findOwner(root);
	if (given === undefined && owner && owner.http_url === null) {
		log(
			`the owner (pid ${owner.pid}) serves the socket only (\`roundtable mcp serve\`); the bridge needs \`roundtable start\``,
		);
		return undefined;
	}
	const live = owner?.http_url ?? undefined;
	let url = checkUrl(given ?? live ?? peekEndpoints(root).httpUrl, token);
	// This project's owner always names itself in owner.json. Without that, whatever answers at
	// the configured address is someone else's (another project's owner on the default port) and
	// must not get this project's calls; port 0 is not an address at all.
	const found = given === undefined && live === undefined ? "absent" : await probe(url, token);
	if (found === "unauthorized")
		throw new Error(
			`the owner at ${url} refused the token (${process.env.ROUNDTABLE_MCP_TOKEN ? "ROUNDTABLE_MCP_TOKEN" : token ? LAYOUT.operatorToken : `none: ${LAYOUT.operatorToken} is missing`})`,
		);
	if (found === "absent") {
		if (!flags.autostart) {
			const where =
				url.port === "0"
					? `for ${root} (mcp.http_address lets the system pick the port, so a live owner's .roundtable/owner.json would name it)`
					: `at ${url}`;
			log(`no Roundtable owner ${where}; start one with \`roundtable start\`, or pass --autostart`);
			return undefined;
		}
		url = await autostart(root, token);
		// An owner started in a project that was not initialized made the token just now.
		token ??= readOperatorToken(root);
	}
	return { url, token };
}

export const stdio: CommandRun = {
	async run(flags) {
		// A launched agent's bridge goes to its session's private socket, which knows who it is.
		const sessionSocket = flags.url === undefined ? process.env.ROUNDTABLE_SESSION_SOCKET : undefined;
		const owner = sessionSocket ? undefined : await ownerUrl(flags);
		if (!sessionSocket && !owner) return 1;
		const out = Bun.stdout.writer();
		// flush() gives a promise while the pipe is full: the bridge waits on it rather than
		// buffering what a client that does not read would never take.
		const send = (frame: string | Uint8Array) => {
			out.write(frame);
			return out.flush();
		};
		// A client that stops its server with a signal instead of closing stdin: clean up the same way.
		const stop = new AbortController();
		let signalled: NodeJS.Signals | undefined;
		for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
			process.once(signal, () => {
				signalled = signal;
				stop.abort();
			});
		}
		const input = Bun.stdin.stream();
		const code = owner
			? await runBridge({
					url: owner.url.href,
					token: owner.token,
					maxLineBytes: MAX_LINE_BYTES,
					input,
					send: (frame) => send(`${frame}\n`),
					log,
					stop: stop.signal,
				})
			: await pipeToSocket({ path: sessionSocket as string, input, send, log, stop: stop.signal });
		await out.end();
		// Open keep-alive connections must not keep a client's subprocess alive after stdin ended.
		process.exit(signalled ? 128 + constants.signals[signalled] : code);
	},
};
