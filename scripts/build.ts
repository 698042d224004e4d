// `npm run build`: the single-file binary (dist/roundtable unless an outfile is given) and its
// SHA-256 beside it, in `sha256sum` format, so a downloaded copy can be checked with
// `sha256sum -c roundtable.sha256` from its folder. test/binary.test.ts runs this same build.
import { mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

const outfile = resolve(process.argv[2] ?? join(import.meta.dir, "..", "dist", "roundtable"));
// The bundler writes each chunk's source map beside the binary, which carries them already; they
// are left in this folder (on the outfile's file system, so the rename below works) and removed.
mkdirSync(dirname(outfile), { recursive: true });
const scratch = mkdtempSync(join(dirname(outfile), ".build-"));

let status: number | null;
try {
	const build = Bun.spawnSync(
		[
			process.execPath,
			"build",
			"--compile",
			"--minify",
			"--sourcemap",
			// Chunks, not one bundle: each command's modules are parsed only when it runs, so
			// `mcp call` relaying to the owner starts as fast as from source (~4× faster than one bundle).
			"--splitting",
			// A project's .env and bunfig.toml are that project's, not Roundtable's (as bin/roundtable).
			"--no-compile-autoload-dotenv",
			"--no-compile-autoload-bunfig",
			"src/main.ts",
			// The search's second thread (src/repo/search-pool.ts), embedded as /$bunfs/root/repo/search-worker.js.
			"src/repo/search-worker.ts",
			"--outfile",
			join(scratch, "roundtable"),
		],
		{ cwd: join(import.meta.dir, ".."), stdout: "inherit", stderr: "inherit" },
	);
	status = build.exitCode;
	if (status === 0) renameSync(join(scratch, "roundtable"), outfile);
} finally {
	rmSync(scratch, { recursive: true, force: true });
}
if (status !== 0) process.exit(status ?? 1);

const hasher = new Bun.CryptoHasher("sha256");
for await (const chunk of Bun.file(outfile).stream()) hasher.update(chunk);
const digest = hasher.digest("hex");
await Bun.write(`${outfile}.sha256`, `${digest}  ${basename(outfile)}\n`);
console.log(`${outfile}: ${Bun.file(outfile).size} bytes, sha256 ${digest}`);
