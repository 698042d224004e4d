// Child process for store tests: loads the store, prints "ready", waits for a "go" line on stdin, then
// opens the database at argv[2] and prints one JSON line: {"ok":true} or {"ok":false,"error":"…"}.
import { openStore } from "../../src/store/index.ts";

const path = process.argv[2];
if (!path) {
	process.stderr.write("usage: open-store.ts DB_PATH\n");
	process.exit(2);
}

process.stdout.write("ready\n");
const reader = Bun.stdin.stream().getReader();
const decoder = new TextDecoder();
let buffered = "";
while (!buffered.includes("\n")) {
	const { value, done } = await reader.read();
	if (done) break;
	buffered += decoder.decode(value, { stream: true });
}
if (buffered.trim() !== "go") {
	process.stdout.write(
		`${JSON.stringify({ ok: false, error: `expected "go", got ${JSON.stringify(buffered)}` })}\n`,
	);
	process.exit(1);
}

try {
	const store = openStore(path);
	// A first read proves the schema is usable from this process.
	const last = await store.withTransaction("read", (tx) => tx.events.lastId());
	store.close();
	process.stdout.write(`${JSON.stringify({ ok: true, last_event_id: last })}\n`);
	process.exit(0);
} catch (err) {
	process.stdout.write(`${JSON.stringify({ ok: false, error: (err as Error).message })}\n`);
	process.exit(1);
}
