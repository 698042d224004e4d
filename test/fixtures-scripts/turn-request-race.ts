// Child process for the turn FIFO race: opens the project, prints "ready", waits for a line
// "go <epoch ms>" on stdin (the start barrier), sleeps until that instant so every child fires at
// once, makes one agent.turn_request call, prints a JSON report with its start and end times.
import { operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { ToolError } from "../../src/errors.ts";
import { openRuntime } from "../../src/runtime.ts";

const [root, run, agent] = process.argv.slice(2) as [string, string, string];
const rt = openRuntime(root);
const clock = () => performance.timeOrigin + performance.now();

process.stdout.write("ready\n");
let line = "";
for await (const chunk of Bun.stdin.stream()) {
	line += new TextDecoder().decode(chunk);
	if (line.includes("\n")) break;
}
const at = Number(/^go (\d+(?:\.\d+)?)/.exec(line)?.[1]);
if (!Number.isFinite(at)) throw new Error(`expected "go <epoch ms>", got ${JSON.stringify(line)}`);
await Bun.sleep(Math.max(0, at - clock()));

const start = clock();
let outcome: Record<string, unknown>;
try {
	outcome = (await call(
		rt,
		"agent.turn_request",
		{ run_id: run, agent_id: agent, reason_md: `${agent} has news` },
		operatorContext("internal"),
	)) as Record<string, unknown>;
} catch (err) {
	const e = err instanceof ToolError ? err : new ToolError("internal", String(err));
	outcome = { error: e.toJSON() };
}
const end = clock();
rt.close();
process.stdout.write(`${JSON.stringify({ agent, start, end, ...outcome })}\n`);
