// Another process on a project an owner serves: `bun committer.ts ROOT`. It opens the project's
// database itself (as `roundtable mcp call --direct` or a second tool does), prints "ready", then for
// each line on stdin records a memory (one commit, one event) and prints the epoch ms its commit
// returned at, until stdin closes.
import { operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { openRuntime } from "../../src/runtime.ts";

const rt = openRuntime(process.argv[2] as string);
const ctx = operatorContext("internal");
process.stdout.write("ready\n");
let buffered = "";
let n = 0;
for await (const chunk of Bun.stdin.stream()) {
	buffered += new TextDecoder().decode(chunk);
	for (let cut = buffered.indexOf("\n"); cut >= 0; cut = buffered.indexOf("\n")) {
		buffered = buffered.slice(cut + 1);
		await call(rt, "memory.record", { title: `c${n++}`, body_md: "b", kind: "fact", scope: "project" }, ctx);
		process.stdout.write(`${performance.timeOrigin + performance.now()}\n`);
	}
}
rt.close();
