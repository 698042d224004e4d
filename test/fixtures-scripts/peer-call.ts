// Child process for the peer tests and bench: another process on the same project. It opens the
// runtime at argv[2], prints "ready", reads one JSON line {tool, args, principal?} from stdin (the
// start barrier), makes that call through the dispatcher (as `principal`, else the operator), and
// prints one JSON line: {ok, result | error: {code, message}, at}, `at` the epoch ms the call
// returned (so a waiter in the parent can be timed against this process's commit).
import type { Principal } from "../../src/context.ts";
import { operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { asToolError } from "../../src/errors.ts";
import { openRuntime } from "../../src/runtime.ts";

const rt = openRuntime(process.argv[2] as string);
process.stdout.write("ready\n");
let line = "";
for await (const chunk of Bun.stdin.stream()) {
	line += new TextDecoder().decode(chunk);
	if (line.includes("\n")) break;
}
const { tool, args, principal } = JSON.parse(line) as { tool: string; args: object; principal?: Principal };
const ctx = { ...operatorContext("internal"), ...(principal && { principal }) };
let out: object;
try {
	out = { ok: true, result: await call(rt, tool, args, ctx) };
} catch (err) {
	const e = asToolError(err);
	out = { ok: false, error: { code: e.code, message: e.message } };
}
const at = performance.timeOrigin + performance.now();
rt.close();
process.stdout.write(`${JSON.stringify({ ...out, at })}\n`);
