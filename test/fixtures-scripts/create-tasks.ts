// Child process for the concurrency test: opens the project, prints "ready", waits for "go" on
// stdin (the start barrier), makes N task.create calls through the dispatcher, prints a JSON report (with its slowest call, in ms).
import { operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { openRuntime } from "../../src/runtime.ts";

const [root, countText, label] = process.argv.slice(2);
const count = Number(countText);
const rt = openRuntime(root as string);
const ctx = operatorContext("internal");
process.stdout.write("ready\n");
for await (const chunk of Bun.stdin.stream()) {
	if (new TextDecoder().decode(chunk).includes("go")) break;
}
const start = performance.timeOrigin + performance.now();
const errors: string[] = [];
let slowest = 0;
for (let i = 0; i < count; i++) {
	const began = performance.now();
	try {
		await call(rt, "task.create", { title: `${label} ${i}`, body_md: "concurrency" }, ctx);
	} catch (err) {
		errors.push(String((err as Error).message));
	}
	slowest = Math.max(slowest, performance.now() - began);
}
const end = performance.timeOrigin + performance.now();
rt.close();
process.stdout.write(`${JSON.stringify({ start, end, errors, slowest })}\n`);
