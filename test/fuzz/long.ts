// The fuzz suite's long run (`npm run fuzz`): 10^5 seeded cases per transport by default, each
// transport against its own fresh owner, the issue's fixed cases three times over the run with
// bigger floods, and a report of counts, timings and owner and bridge memory (RSS from /proc).
// FUZZ_SEED, FUZZ_CASES and FUZZ_TRANSPORTS (e.g. "socket,stdio") override the defaults.
// Exits 1 when anything failed.
import { httpDriver } from "./http.ts";
import { type Context, type Driver, describe, type FuzzReport, fromEnv, run, type Transport } from "./run.ts";
import { socketDriver } from "./socket.ts";
import { stdioDriver } from "./stdio.ts";

const DRIVERS: Record<Transport, (ctx: Context) => Promise<Driver>> = {
	socket: socketDriver,
	http: httpDriver,
	stdio: stdioDriver,
};

const { seed, cases } = fromEnv(100_000);
const wanted = (process.env.FUZZ_TRANSPORTS ?? "socket,http,stdio").split(",").map((s) => s.trim());
for (const t of wanted) if (!(t in DRIVERS)) throw new Error(`FUZZ_TRANSPORTS: unknown transport '${t}'`);

console.log(
	`fuzz long run: seed ${seed}, ${cases} generated cases per transport, transports ${wanted.join(", ")}`,
);
const reports: FuzzReport[] = [];
for (const t of wanted as Transport[]) {
	const [r] = await run([[t, DRIVERS[t]]], {
		seed,
		cases,
		batch: 1000,
		concurrency: 16,
		hangMs: 30_000,
		issueRounds: 3,
		long: true,
		log: (line) => console.log(`  ${new Date().toISOString().slice(11, 19)} ${line}`),
	});
	if (r) {
		reports.push(r);
		console.log(describe(r).join("\n"));
	}
}
const failed = reports.reduce((n, r) => n + r.tally.failed, 0);
console.log(`fuzz long run: ${failed === 0 ? "no failures" : `${failed} failures`} (seed ${seed})`);
process.exit(failed === 0 && reports.length === wanted.length ? 0 : 1);
