// Child process for the Chair tests: opens the project at argv[2], runs one Chair tick of run argv[3]
// and prints the tick report as one JSON line.
import { tick } from "../../src/chair/tick.ts";
import { openRuntime } from "../../src/runtime.ts";

const [root, runId] = process.argv.slice(2) as [string, string];
const rt = openRuntime(root);
try {
	const report = await tick(rt, runId, { log: (line) => process.stderr.write(`${line}\n`) });
	process.stdout.write(`${JSON.stringify(report)}\n`);
} finally {
	rt.close();
}
