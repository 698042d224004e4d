// `npm run build`: the single-file binary (dist/roundtable unless an outfile is given) and its
// SHA-256 beside it, in `sha256sum` format, so a downloaded copy can be checked with
// `sha256sum -c roundtable.sha256` from its folder. test/binary.test.ts runs this same build.
import { basename, join, resolve } from "node:path";

const outfile = resolve(process.argv[2] ?? join(import.meta.dir, "..", "dist", "roundtable"));

const build = Bun.spawnSync(
	[
		process.execPath,
		"build",
		"--compile",
		"--minify",
		"--sourcemap",
		// A project's .env and bunfig.toml are that project's, not Roundtable's (as bin/roundtable).
		"--no-compile-autoload-dotenv",
		"--no-compile-autoload-bunfig",
		"src/main.ts",
		// The search's second thread (src/repo/search-pool.ts), embedded as /$bunfs/root/repo/search-worker.js.
		"src/repo/search-worker.ts",
		"--outfile",
		outfile,
	],
	{ cwd: join(import.meta.dir, ".."), stdout: "inherit", stderr: "inherit" },
);
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);

const hasher = new Bun.CryptoHasher("sha256");
for await (const chunk of Bun.file(outfile).stream()) hasher.update(chunk);
const digest = hasher.digest("hex");
await Bun.write(`${outfile}.sha256`, `${digest}  ${basename(outfile)}\n`);
console.log(`${outfile}: ${Bun.file(outfile).size} bytes, sha256 ${digest}`);
