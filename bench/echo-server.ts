// The floor for the transport benchmarks: a Unix socket that answers one line with one line, and
// an HTTP server that answers a JSON POST with JSON. No tools, no database.
const [socketPath] = process.argv.slice(2);
const listener = Bun.listen({
	unix: socketPath as string,
	allowHalfOpen: true,
	socket: {
		data(s, chunk) {
			if (chunk.includes(10)) {
				s.write('{"ok":true,"result":{}}\n');
				s.end();
			}
		},
	},
});
const server = Bun.serve({
	hostname: "127.0.0.1",
	port: 0,
	async fetch(req) {
		const body = (await req.json()) as { id?: unknown };
		return Response.json({ jsonrpc: "2.0", id: body.id ?? null, result: {} });
	},
});
process.stdout.write(`${server.port}\n`);
process.on("SIGTERM", () => {
	listener.stop(true);
	server.stop(true);
	process.exit(0);
});
