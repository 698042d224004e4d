// Child process for the inbox wait test: opens the project at argv[2], prints "ready", waits for "go"
// on stdin, posts argv[4] to agent argv[3] through the dispatcher as the operator, and prints the
// message's id as one JSON line.
import { operatorContext } from "../../src/context.ts";
import { call } from "../../src/dispatch.ts";
import { openRuntime } from "../../src/runtime.ts";

const [root, to, body] = process.argv.slice(2);
const rt = openRuntime(root as string);
process.stdout.write("ready\n");
for await (const chunk of Bun.stdin.stream()) {
	if (new TextDecoder().decode(chunk).includes("go")) break;
}
const { message } = await call(
	rt,
	"message.post",
	{ to_agent_id: to, body_md: body },
	operatorContext("internal"),
);
rt.close();
process.stdout.write(`${JSON.stringify({ id: message.id })}\n`);
