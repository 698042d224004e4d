// The floor of the "socket read" figure: a bare Bun.listen server speaking the legacy socket's
// protocol (one request line per connection, one reply line, then close) that does the trivial
// work any such server must: it parses the request and serializes a fixed reply, the row the
// owner's task.get returned (given as JSON in argv). No tools, no database, no limits.
const [socketPath, rowJson] = process.argv.slice(2);
const row = JSON.parse(rowJson as string) as object;

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
			const request = JSON.parse(Buffer.concat(s.data.chunks).toString()) as { tool: string; args: object };
			if (typeof request.tool !== "string") throw new Error("no tool");
			s.write(`${JSON.stringify({ ok: true, result: row })}\n`);
			s.end();
		},
	},
});
process.stdout.write("ready\n");
process.on("SIGTERM", () => {
	listener.stop(true);
	process.exit(0);
});

// A module, so its names stay its own (echo-server.ts has the same ones).
export {};
