// Child process for the apply crash tests: opens the project at argv[2], makes one call of the tool
// argv[3] (patch.apply or patch.rollback) with the JSON arguments argv[4] as the operator, and prints
// one JSON line: {"ok":true,"result":…} or {"ok":false,"code":…,"message":…}. With
// ROUNDTABLE_TEST_CRASH_AT set, src/apply/transact.ts SIGKILLs this process at that step instead.
import { operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { ToolError } from "../../src/errors.ts";
import { openRuntime } from "../../src/runtime.ts";

const [root, tool, json] = process.argv.slice(2);
if (root === undefined || tool === undefined || json === undefined) {
	process.stderr.write("usage: apply-once.ts ROOT TOOL ARGS_JSON\n");
	process.exit(2);
}

const rt = openRuntime(root);
let report: object;
try {
	report = { ok: true, result: await call(rt, tool, JSON.parse(json), operatorContext("internal")) };
} catch (err) {
	const e = err instanceof ToolError ? err : new ToolError("internal", String(err));
	report = { ok: false, code: e.code, message: e.message };
}
rt.close();
process.stdout.write(`${JSON.stringify(report)}\n`);
