// `npm run bench`: every benchmark in turn, then one line with each of the speed issues' figures (the ratio
// to its floor from the same run, and whether it meets its goal). Figures go in the issue notes, not
// in test assertions.
import * as access from "./access.bench.ts";
import * as apply from "./apply.bench.ts";
import * as autopilot from "./autopilot.bench.ts";
import * as chair from "./chair.bench.ts";
import * as claims from "./claims.bench.ts";
import * as cli from "./cli.bench.ts";
import * as dashboard from "./dashboard.bench.ts";
import * as dispatch from "./dispatch.bench.ts";
import * as headless from "./headless.bench.ts";
import * as http from "./http.bench.ts";
import * as launch from "./launch.bench.ts";
import { type Figure, fmt, meets } from "./lib.ts";
import * as memory from "./memory.bench.ts";
import * as paced from "./paced.bench.ts";
import * as peers from "./peers.bench.ts";
import * as read from "./read.bench.ts";
import * as search from "./search.bench.ts";
import * as symbols from "./symbols.bench.ts";
import * as testrun from "./testrun.bench.ts";
import * as toollist from "./toollist.bench.ts";
import * as transports from "./transports.bench.ts";
import * as watch from "./watch.bench.ts";
import * as workspace from "./workspace.bench.ts";
import * as write from "./write.bench.ts";

type Bench = { run(): Promise<unknown> };

const isFigure = (x: unknown): x is Figure =>
	typeof x === "object" && x !== null && "ratio" in x && "goal" in x;

const benches: Record<string, Bench> = {
	toollist,
	dispatch,
	write,
	access,
	watch,
	peers,
	transports,
	http,
	read,
	cli,
	search,
	symbols,
	claims,
	apply,
	chair,
	autopilot,
	testrun,
	launch,
	headless,
	workspace,
	dashboard,
	memory,
	paced,
};
/** The speed issues' figures come from these; `npm run bench -- figures` runs only them. */
const FIGURES = ["write", "watch", "read", "cli", "search", "chair", "memory", "paced", "http"];

// `npm run bench -- NAME…` runs only the named benches.
const asked = process.argv.slice(2).flatMap((a) => (a === "figures" ? FIGURES : [a]));
const unknown = asked.filter((a) => !(a in benches));
if (unknown.length > 0) {
	console.error(`unknown bench ${unknown.join(", ")}; known: ${Object.keys(benches).join(", ")}, or figures`);
	process.exit(2);
}
const chosen = asked.length > 0 ? asked : Object.keys(benches);

console.log(`roundtable benchmarks — bun ${Bun.version}, ${process.platform}/${process.arch}\n`);
const figures: Figure[] = [];
// A bench that cannot run here (its floor's tool is missing, say) is reported, and the rest still run.
const failed: string[] = [];
for (const name of chosen) {
	try {
		const got = await (benches[name] as Bench).run();
		figures.push(...[got].flat().filter(isFigure));
	} catch (err) {
		console.error(`${name}: did not run: ${(err as Error).message}`);
		failed.push(name);
		process.exitCode = 1;
	}
	console.log();
}
const shown = (f: Figure) =>
	`${f.name} ${fmt(f.ratio, 2)} (${f.goal.op}${f.goal.value}${meets(f) ? "" : " MISSED"})`;
const parts = [...figures.map(shown), ...(failed.length > 0 ? [`did not run: ${failed.join(", ")}`] : [])];
console.log(`figures: ${parts.join(" · ")}`);
