// `npm run bench`: every benchmark in turn. Figures go in the issue notes, not in test assertions.
import * as access from "./access.bench.ts";
import * as apply from "./apply.bench.ts";
import * as chair from "./chair.bench.ts";
import * as claims from "./claims.bench.ts";
import * as cli from "./cli.bench.ts";
import * as dashboard from "./dashboard.bench.ts";
import * as dispatch from "./dispatch.bench.ts";
import * as launch from "./launch.bench.ts";
import * as peers from "./peers.bench.ts";
import * as search from "./search.bench.ts";
import * as symbols from "./symbols.bench.ts";
import * as testrun from "./testrun.bench.ts";
import * as toollist from "./toollist.bench.ts";
import * as transports from "./transports.bench.ts";
import * as watch from "./watch.bench.ts";
import * as write from "./write.bench.ts";

console.log(`roundtable benchmarks — bun ${Bun.version}, ${process.platform}/${process.arch}\n`);
const benches = [
	toollist,
	dispatch,
	write,
	access,
	watch,
	peers,
	transports,
	cli,
	search,
	symbols,
	claims,
	apply,
	chair,
	testrun,
	launch,
	dashboard,
];
for (const bench of benches) {
	await bench.run();
	console.log();
}
