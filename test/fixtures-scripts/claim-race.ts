// Child process for the claim race: opens the project, prints "ready", waits for "go" on stdin
// (the start barrier), makes one resource.claim call, prints a JSON report.
import { operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { ToolError } from "../../src/errors.ts";
import { openRuntime } from "../../src/runtime.ts";

const [root, agent, task] = process.argv.slice(2) as [string, string, string];
const rt = openRuntime(root);
process.stdout.write("ready\n");
for await (const chunk of Bun.stdin.stream()) {
	if (new TextDecoder().decode(chunk).includes("go")) break;
}
const start = performance.timeOrigin + performance.now();
let outcome: { won: true; claim_id: string } | { won: false; code: string; details: unknown };
try {
	const out = (await call(
		rt,
		"resource.claim",
		{
			resource_type: "file",
			resource_id: "file:contested.ts",
			claim_type: "write",
			task_id: task,
			agent_id: agent,
		},
		operatorContext("internal"),
	)) as { claim: { id: string } };
	outcome = { won: true, claim_id: out.claim.id };
} catch (err) {
	const e = err instanceof ToolError ? err : new ToolError("internal", String(err));
	outcome = { won: false, code: e.code, details: e.details };
}
const end = performance.timeOrigin + performance.now();
rt.close();
process.stdout.write(`${JSON.stringify({ agent, start, end, ...outcome })}\n`);
