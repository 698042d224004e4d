// `roundtable sessions launch` beside a live owner: from running the command to the agent's first
// tools/list answered through its session's socket, and to the command's exit (the session closed),
// in bubblewrap and with sessions.sandbox off; beside the floor of starting the same child directly.
// Then what an agent's HTTPS request costs through its sandbox's egress proxy (loopback forwarder,
// Unix socket, the owner-side CONNECT proxy) against the same request made directly, as agents made
// it before they had a network namespace: a new connection each time, and a 16 MiB download.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SESSION_CHILD as CHILD, fmt, median, readLine } from "./lib.ts";

const ROOT = join(import.meta.dir, "..");
const MAIN = join(ROOT, "src/main.ts");
const RUNS = Number(process.env.BENCH_RUNS ?? 10);

// The agent of the proxy figure: RUNS requests on new connections, then one large download; prints
// the median request and the download's ms as JSON.
const FETCHER = `
const url = process.argv[2];
const proxy = process.env.HTTPS_PROXY;
const options = { tls: { rejectUnauthorized: false }, keepalive: false, ...(proxy && { proxy }) };
const times = [];
for (let i = 0; i < ${RUNS * 5} + 2; i++) {
	const t = performance.now();
	await (await fetch(url + "small", options)).text();
	if (i >= 2) times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
const t = performance.now();
const big = await (await fetch(url + "big", options)).arrayBuffer();
console.log(JSON.stringify({ request: times[Math.floor(times.length / 2)], download: performance.now() - t, bytes: big.byteLength }));
`;

/** A self-signed certificate for 127.0.0.1, made with openssl; undefined without it. */
function certificate(dir: string): { cert: string; key: string } | undefined {
	const r = Bun.spawnSync(
		[
			"openssl",
			"req",
			"-x509",
			"-newkey",
			"rsa:2048",
			"-nodes",
			"-days",
			"1",
			"-subj",
			"/CN=127.0.0.1",
		].concat(["-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem")]),
		{ stderr: "ignore", stdout: "ignore" },
	);
	if (r.exitCode !== 0) return undefined;
	return {
		cert: readFileSync(join(dir, "cert.pem"), "utf8"),
		key: readFileSync(join(dir, "key.pem"), "utf8"),
	};
}

export async function run(): Promise<void> {
	const project = mkdtempSync(join(tmpdir(), "rt-bench-launch-"));
	// The agents' scripts live beside the project, shown to the sandbox as a user would name them.
	const scripts = mkdtempSync(join(tmpdir(), "rt-bench-agent-"));
	const child = join(scripts, "child.ts");
	const fetcher = join(scripts, "fetcher.ts");
	const cli = (args: string[]) => Bun.spawnSync([process.execPath, MAIN, ...args, "--root", project]);
	cli(["init"]);
	const config = join(project, ".roundtable/config.yaml");
	const tls = certificate(scripts);
	const big = new Uint8Array(16 * 1024 * 1024);
	const server =
		tls &&
		Bun.serve({
			hostname: "127.0.0.1",
			port: 0,
			tls,
			fetch: (req) => new Response(new URL(req.url).pathname === "/big" ? big : "ok"),
		});
	const text = readFileSync(config, "utf8")
		.replace("127.0.0.1:7117", "127.0.0.1:0")
		.replace("  expose: []", `  expose: [${JSON.stringify(scripts)}]`)
		.replace(
			/( {2}generic:\n(?: {4}.*\n)*? {4}egress: )\[\]/,
			`$1[${server ? `"127.0.0.1:${server.port}"` : ""}]`,
		);
	writeFileSync(config, text);
	writeFileSync(child, CHILD);
	writeFileSync(fetcher, FETCHER);
	const owner = Bun.spawn([process.execPath, MAIN, "start", "--root", project], {
		stdout: "pipe",
		stderr: "ignore",
	});
	await readLine(owner.stdout);
	const once = (argv: string[]) => {
		const t0 = Date.now();
		const r = Bun.spawnSync(argv, { stderr: "pipe" });
		const listedAt = Number(new TextDecoder().decode(r.stdout).trim().split("\n").at(-1));
		return { listed: listedAt - t0, exited: Date.now() - t0 };
	};
	const series = (argv: string[]) => {
		const runs = Array.from({ length: RUNS }, () => once(argv));
		return { listed: median(runs.map((r) => r.listed)), exited: median(runs.map((r) => r.exited)) };
	};
	try {
		const launch = [
			process.execPath,
			MAIN,
			"sessions",
			"launch",
			"--root",
			project,
			"--agent",
			"reviewer-1",
			"--adapter",
			"generic",
			"--",
			process.execPath,
		];
		const floor = series([process.execPath, child]);
		const sandboxed = series([...launch, child]);
		const url = server && `https://127.0.0.1:${server.port}/`;
		// Spawned without blocking: the server answering the requests lives in this process.
		const fetched = async (argv: string[]) => {
			const p = Bun.spawn(argv, { stdout: "pipe", stderr: "pipe" });
			const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
			await p.exited;
			const line = out.trim().split("\n").at(-1) ?? "";
			if (!line.startsWith("{")) throw new Error(`fetcher: ${line} ${err}`);
			return JSON.parse(line) as { request: number; download: number; bytes: number };
		};
		const direct = url && (await fetched([process.execPath, fetcher, url]));
		const proxied = url && (await fetched([...launch, fetcher, url]));
		writeFileSync(config, text.replace(/(sessions:\n(?:.*\n)*? {2}sandbox: )auto/, "$1off"));
		await Bun.sleep(1200); // the owner reloads the config; the launcher reads it itself
		const bare = series([...launch, child]);
		console.log(`sessions launch beside a live owner (median of ${RUNS}; ms from running the command):`);
		console.log(
			`  floor: the same child, started directly          exits ${fmt(floor.exited, 0).padStart(5)} ms`,
		);
		console.log(
			`  launch, sessions.sandbox off   first tools/list ${fmt(bare.listed, 0).padStart(5)} ms   exits ${fmt(bare.exited, 0).padStart(5)} ms`,
		);
		console.log(
			`  launch, in bubblewrap          first tools/list ${fmt(sandboxed.listed, 0).padStart(5)} ms   exits ${fmt(sandboxed.exited, 0).padStart(5)} ms   (sandbox +${fmt(sandboxed.listed - bare.listed, 0)} ms)`,
		);
		if (direct && proxied) {
			const mbps = (r: { download: number; bytes: number }) =>
				fmt(r.bytes / 1024 / 1024 / (r.download / 1000), 0);
			console.log(
				`an agent's HTTPS request to a loopback server (median of ${RUNS * 5}, a new connection each):`,
			);
			console.log(
				`  floor: direct, as before the egress proxy   ${fmt(direct.request, 2).padStart(6)} ms   16 MiB in ${fmt(direct.download, 0)} ms (${mbps(direct)} MiB/s)`,
			);
			console.log(
				`  through the sandbox's egress proxy          ${fmt(proxied.request, 2).padStart(6)} ms   16 MiB in ${fmt(proxied.download, 0)} ms (${mbps(proxied)} MiB/s)   (+${fmt(proxied.request - direct.request, 2)} ms)`,
			);
		} else console.log("  (no proxied request figure: openssl is not here to make a certificate)");
	} finally {
		server?.stop(true);
		owner.kill("SIGTERM");
		await owner.exited;
		rmSync(project, { recursive: true, force: true });
		rmSync(scripts, { recursive: true, force: true });
	}
}

if (import.meta.main) await run();
