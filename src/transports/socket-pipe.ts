// The stdio bridge of a launched session: with ROUNDTABLE_SESSION_SOCKET set, `roundtable mcp
// stdio` carries the client's lines to the session's private socket and the answers back, byte
// for byte (the socket does the framing). stdin's end closes the connection, which cancels what
// is still running, as the HTTP bridge does.
export interface PipeOptions {
	path: string;
	input: ReadableStream<Uint8Array>;
	/** Writes bytes to the client; a promise while its pipe is full. */
	send: (bytes: Uint8Array) => unknown;
	log: (message: string) => void;
	stop?: AbortSignal;
}

export async function pipeToSocket(o: PipeOptions): Promise<number> {
	let drained: (() => void) | undefined;
	let closed!: () => void;
	const done = new Promise<void>((resolve) => {
		closed = resolve;
	});
	let socket: Awaited<ReturnType<typeof Bun.connect>>;
	try {
		socket = await Bun.connect({
			unix: o.path,
			socket: {
				data(_s, chunk) {
					void o.send(chunk);
				},
				drain() {
					drained?.();
				},
				close() {
					closed();
				},
				end() {
					closed();
				},
				error() {
					closed();
				},
			},
		});
	} catch (err) {
		o.log(`cannot reach the session's socket ${o.path}: ${(err as Error).message}`);
		return 1;
	}
	const pump = (async () => {
		const reader = o.input.getReader();
		o.stop?.addEventListener("abort", () => void reader.cancel().catch(() => {}), { once: true });
		for (;;) {
			const { value, done: eof } = await reader.read().catch(() => ({ value: undefined, done: true }));
			if (eof || !value) break;
			let rest = value;
			while (rest.length > 0) {
				const n = socket.write(rest);
				rest = rest.subarray(Math.max(n, 0));
				if (rest.length > 0) await new Promise<void>((resolve) => (drained = resolve));
			}
		}
		socket.end();
	})();
	await Promise.race([done, pump.then(() => done)]);
	return 0;
}
