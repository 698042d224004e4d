// A client of the legacy socket: one request line out, one reply line back.

export interface SocketReply {
	ok: boolean;
	result?: unknown;
	error?: string;
	code?: string;
	details?: unknown;
}

export function callSocket(
	path: string,
	tool: string,
	args: unknown,
	timeoutMs = 60_000,
): Promise<SocketReply> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		const timer = setTimeout(
			() => reject(new Error(`no reply from ${path} within ${timeoutMs} ms`)),
			timeoutMs,
		);
		const finish = () => {
			clearTimeout(timer);
			const text = Buffer.concat(chunks).toString("utf8").trim();
			try {
				resolve(JSON.parse(text) as SocketReply);
			} catch {
				reject(new Error(`the socket at ${path} closed without a reply`));
			}
		};
		Bun.connect({
			unix: path,
			allowHalfOpen: true,
			socket: {
				open(s) {
					s.write(`${JSON.stringify({ tool, args })}\n`);
				},
				data(_s, chunk) {
					chunks.push(Buffer.from(chunk));
				},
				end(s) {
					s.end();
				},
				close: finish,
				error(_s, err) {
					clearTimeout(timer);
					reject(err);
				},
			},
		}).catch((err: Error) => {
			clearTimeout(timer);
			reject(new Error(`cannot reach the Roundtable socket at ${path}: ${err.message}`));
		});
	});
}
