// What the bare servers of the socket figures share: the legacy protocol with nothing around it.
// One request line per connection, parsed; one reply line from `answer` (or what its promise gives);
// then close. No limits, no deadlines, no tools. Prints "ready" once listening and stops on SIGTERM.

export interface BareRequest {
	tool: string;
	args: Record<string, unknown>;
}

export function serveBare(
	socketPath: string,
	answer: (request: BareRequest) => object | Promise<object>,
	onStop = () => {},
): void {
	const listener = Bun.listen<{ chunks: Buffer[] }>({
		unix: socketPath,
		allowHalfOpen: true,
		socket: {
			open(s) {
				s.data = { chunks: [] };
			},
			data(s, chunk) {
				s.data.chunks.push(chunk);
				if (!chunk.includes(10)) return;
				const request = JSON.parse(Buffer.concat(s.data.chunks).toString()) as BareRequest;
				if (typeof request.tool !== "string") throw new Error("no tool");
				const reply = (body: object) => {
					s.write(`${JSON.stringify(body)}\n`);
					s.end();
				};
				// A value is written at once: waiting a turn for it, as for a promise, would add to the
				// floor's every call what the floor is there to leave out.
				const body = answer(request);
				if (body instanceof Promise) body.then(reply);
				else reply(body);
			},
		},
	});
	process.stdout.write("ready\n");
	process.on("SIGTERM", () => {
		listener.stop(true);
		onStop();
		process.exit(0);
	});
}
