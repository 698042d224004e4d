// The npm package as a user gets it: `npm pack` of this checkout, installed by real npm into a
// fresh project whose PATH holds node and npm but no bun, from the local npm cache. Then
// `npx roundtable` runs --version, init, start and mcp stdio there. Skipped, with the reason
// printed, only when the install fails and the registry cannot be reached.
import { afterAll, describe, expect, test } from "bun:test";
import {
	closeSync,
	existsSync,
	openSync,
	readFileSync,
	readSync,
	statSync,
	symlinkSync,
	writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { AGENT_TOOLS } from "../../src/registry/index.ts";
import { VERSION } from "../../src/version.ts";
import { REPO, runProcess } from "../_helpers/helpers.ts";
import {
	cleanUp,
	prepareProject,
	scratch,
	startOwner,
	stdioSession,
	userEnv,
} from "../_helpers/install-helpers.ts";

const home = scratch("rt-pkg-home-");
const cache = (await runProcess(["npm", "config", "get", "cache"])).stdout.trim();
// npm's own cache (filled by `npm ci`), with a throwaway HOME so no user setting leaks in.
const env = userEnv(home, { npm_config_cache: cache, npm_config_update_notifier: "false" });
const times: string[] = [];

async function timed<T>(what: string, work: () => Promise<T>): Promise<T> {
	const started = performance.now();
	try {
		return await work();
	} finally {
		times.push(`${what} ${((performance.now() - started) / 1000).toFixed(1)} s`);
	}
}
afterAll(() => {
	console.log(`package: ${times.join(", ")}`);
	cleanUp();
});

const packDir = scratch("rt-pkg-tgz-");
const packed = await timed("npm pack", () =>
	runProcess(["npm", "pack", "--json", "--pack-destination", packDir], { cwd: REPO, env }),
);
if (packed.code !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
const [tarball] = JSON.parse(packed.stdout) as { filename: string; size: number }[];
if (!tarball) throw new Error(`npm pack printed no tarball: ${packed.stdout}`);
const tgz = join(packDir, tarball.filename);
console.log(`package: ${tarball.filename} is ${statSync(tgz).size} bytes`);

type Installed = { kind: "ok"; root: string } | { kind: "skip"; reason: string };

/** A fresh project with the tarball installed by `npm install <tgz> …flags`. */
async function install(flags: string[]): Promise<Installed> {
	const root = scratch("rt-pkg-project-");
	writeFileSync(join(root, "package.json"), '{ "name": "fresh", "version": "1.0.0", "private": true }\n');
	const r = await timed(`npm install ${flags.join(" ")}`.trim(), () =>
		runProcess(["npm", "install", "--prefer-offline", "--no-audit", "--no-fund", ...flags, tgz], {
			cwd: root,
			env,
		}),
	);
	if (r.code === 0) return { kind: "ok", root };
	const ping = await runProcess(["npm", "ping", "--fetch-timeout=15000", "--fetch-retries=0"], { env });
	if (ping.code !== 0)
		return {
			kind: "skip",
			reason: `npm install failed and the registry cannot be reached: ${ping.stderr.trim()}`,
		};
	throw new Error(`npm install ${tgz} failed (${r.code}): ${r.stderr}`);
}

// As the README says: a plain install. npm 11 runs bun's unreviewed postinstall with a warning,
// which moves the runtime to node_modules/bun/bin/bun.exe.
const plain = await install([]);
// Where install scripts do not run, the runtime stays in its @oven/bun-<platform> package.
const noScripts = await install(["--ignore-scripts"]);
for (const r of [plain, noScripts]) if (r.kind === "skip") console.log(`package: SKIPPED: ${r.reason}`);

// --yes=false: never fetch a package of that name from the registry if the local one is missing.
const NPX = ["npx", "--yes=false", "roundtable"];
const npx = (root: string, ...args: string[]) => runProcess([...NPX, ...args], { cwd: root, env });

/** The first five bytes of a file, as text: bun's placeholder script starts with "echo ". */
function firstBytes(path: string): string {
	const fd = openSync(path, "r");
	try {
		const bytes = Buffer.alloc(5);
		return bytes.subarray(0, readSync(fd, bytes)).toString("latin1");
	} finally {
		closeSync(fd);
	}
}

test("in this checkout too, npx roundtable runs the launcher with no bun on PATH", async () => {
	const r = await npx(REPO, "--version");
	expect(r).toMatchObject({ code: 0, stdout: `roundtable ${VERSION}\n` });
});

describe.skipIf(plain.kind === "skip")("installed with `npm install <tgz>`", () => {
	const root = plain.kind === "ok" ? plain.root : "";

	test("npx roundtable --version", async () => {
		// npm 11.19 runs bun's unreviewed postinstall (with a warning), so this install covers the
		// launcher's bun.exe branch; should npm stop running it, this line says so.
		expect(firstBytes(join(root, "node_modules", "bun", "bin", "bun.exe"))).not.toBe("echo ");
		const r = await timed("npx --version", () => npx(root, "--version"));
		expect(r).toMatchObject({ code: 0, stdout: `roundtable ${VERSION}\n` });
	});

	test("init --client claude points the client at the installed launcher", async () => {
		prepareProject(root);
		const r = await timed("npx init", () => npx(root, "init", "--client", "claude"));
		expect(r.code).toBe(0);
		const entry = JSON.parse(readFileSync(join(root, ".mcp.json"), "utf8")).mcpServers.roundtable;
		expect(entry).toEqual({
			type: "stdio",
			command: join(root, "node_modules", "roundtable", "bin", "roundtable"),
			args: ["mcp", "stdio", "--root", root],
		});
	});

	test("npx roundtable start; mcp stdio (npx, and the client entry from elsewhere) relays to it", async () => {
		const owner = await timed("npx start to ready", () => startOwner([...NPX, "start"], root, env));
		expect(owner.ready).toMatch(/^roundtable ready: .* http=http:\/\/127\.0\.0\.1:\d+\/mcp /);
		const published = AGENT_TOOLS.map((t) => t.name).sort();

		const viaNpx = await timed("npx mcp stdio session", () =>
			stdioSession([...NPX, "mcp", "stdio"], root, env),
		);
		expect(viaNpx.initialize.result?.serverInfo).toMatchObject({ name: "roundtable", version: VERSION });
		expect(viaNpx.toolNames).toEqual(published);
		expect(viaNpx.code).toBe(0);

		const { command, args } = JSON.parse(readFileSync(join(root, ".mcp.json"), "utf8")).mcpServers.roundtable;
		const viaEntry = await stdioSession([command, ...args], home, env);
		expect(viaEntry.toolNames).toEqual(published);
		const state = viaEntry.state.result?.structuredContent as { agents: unknown[] };
		expect(state.agents).toHaveLength(8);

		await owner.stop();
		expect(existsSync(join(root, ".roundtable", "owner.json"))).toBe(false);
		// The project's bunfig.toml preload never ran inside Roundtable.
		expect(existsSync(join(root, "preloaded"))).toBe(false);
	}, 90_000);

	test("bunx roundtable, where Bun is installed", async () => {
		const bunHome = scratch("rt-pkg-bun-");
		for (const name of ["bun", "bunx"]) symlinkSync(process.execPath, join(bunHome, name));
		const r = await runProcess(["bunx", "roundtable", "--version"], {
			cwd: root,
			env: { ...env, PATH: `${bunHome}:${env.PATH}` },
		});
		expect(r).toMatchObject({ code: 0, stdout: `roundtable ${VERSION}\n` });
	});
});

describe.skipIf(noScripts.kind === "skip")("installed with --ignore-scripts", () => {
	const root = noScripts.kind === "ok" ? noScripts.root : "";

	test("bun's placeholder is left, and the launcher runs the platform package's runtime", async () => {
		// The placeholder is a short shell script that only prints an error.
		expect(firstBytes(join(root, "node_modules", "bun", "bin", "bun.exe"))).toBe("echo ");
		const r = await npx(root, "--version");
		expect(r).toMatchObject({ code: 0, stdout: `roundtable ${VERSION}\n` });
		prepareProject(root);
		const init = await npx(root, "init", "--client", "codex");
		expect(init.code).toBe(0);
		const owner = await startOwner([...NPX, "start"], root, env);
		const session = await stdioSession([...NPX, "mcp", "stdio"], root, env);
		expect(session.initialize.result?.serverInfo).toMatchObject({ name: "roundtable" });
		await owner.stop();
	}, 90_000);
});
