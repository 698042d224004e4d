// The other process for bench/peers.bench.ts: opens the project at argv[2], prints "ready", then
// for each JSON line {tool, args} on stdin makes that call as the operator and prints the epoch ms
// it returned at (its commit is done by then), one line per call, until stdin closes.
import { operatorContext } from "../src/context.ts";
import { call } from "../src/dispatch.ts";
import { openRuntime } from "../src/runtime.ts";

const rt = openRuntime(process.argv[2] as string);
const ctx = operatorContext("internal");
process.stdout.write("ready\n");
let buffered = "";
for await (const chunk of Bun.stdin.stream()) {
	buffered += new TextDecoder().decode(chunk);
	for (let cut = buffered.indexOf("\n"); cut >= 0; cut = buffered.indexOf("\n")) {
		const { tool, args } = JSON.parse(buffered.slice(0, cut)) as { tool: string; args: object };
		buffered = buffered.slice(cut + 1);
		await call(rt, tool, args, ctx);
		process.stdout.write(`${performance.timeOrigin + performance.now()}\n`);
	}
}
rt.close();
