// A client of the legacy socket: one request line out, one reply line back.

/** Nothing was sent: no socket, or nobody accepted. Safe to try another way. */
export class SocketUnreachable extends Error {
	override name = "SocketUnreachable";
}

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
	/** Undefined: wait as long as the call runs (the owner bounds it; Ctrl-C cancels it). */
	timeoutMs?: number,
): Promise<SocketReply> {
	return new Promise((resolve, reject) => {
		const chunks: Buffer[] = [];
		const timer =
			timeoutMs === undefined
				? undefined
				: setTimeout(() => reject(new Error(`no reply from ${path} within ${timeoutMs} ms`)), timeoutMs);
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
			reject(new SocketUnreachable(`cannot reach the Roundtable socket at ${path}: ${err.message}`));
		});
	});
}
