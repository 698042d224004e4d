// The ceiling of the "write" figure: what any server speaking the legacy socket's protocol (one
// request line per connection, one reply line, then close) reaches on this machine when it does the
// floor's database work and nothing else: no tools, no validation, no events, no limits. The owner
// can only come near it; its distance from the floor is the socket round trip itself.
// Usage: bun bench/write-ceiling.ts <socket path> <directory for its database>
import { openFloor } from "./write-floor.ts";

const [socketPath, dir] = process.argv.slice(2);
const floor = openFloor(dir as string);

const listener = Bun.listen<{ chunks: Buffer[] }>({
	unix: socketPath as string,
	allowHalfOpen: true,
	socket: {
		open(s) {
			s.data = { chunks: [] };
		},
		data(s, chunk) {
			s.data.chunks.push(chunk);
			if (!chunk.includes(10)) return;
			const { args } = JSON.parse(Buffer.concat(s.data.chunks).toString()) as {
				args: { title: string; body_md: string };
			};
			const id = floor.row(args.title, args.body_md);
			s.write(`${JSON.stringify({ ok: true, result: { task: { id } } })}\n`);
			s.end();
		},
	},
});
process.stdout.write("ready\n");
process.on("SIGTERM", () => {
	listener.stop(true);
	floor.close();
	process.exit(0);
});
