// Newline-delimited frames from a byte stream, with bounded memory: a line longer than the cap is
// reported as oversized and its bytes are drained (not kept) up to the next newline, after which
// reading goes on normally.

export type Frame = { line: Uint8Array } | { oversized: true };

export async function* readLines(
	stream: ReadableStream<Uint8Array>,
	maxBytes: number,
): AsyncGenerator<Frame> {
	let parts: Uint8Array[] = [];
	let size = 0;
	let draining = false;
	const take = (): Uint8Array => {
		const line = parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts);
		parts = [];
		size = 0;
		return line;
	};
	for await (const chunk of stream) {
		let start = 0;
		while (start < chunk.length) {
			const newline = chunk.indexOf(0x0a, start);
			const end = newline === -1 ? chunk.length : newline;
			if (!draining) {
				if (size + (end - start) > maxBytes) {
					draining = true;
					parts = [];
					size = 0;
				} else if (end > start) {
					parts.push(chunk.subarray(start, end));
					size += end - start;
				}
			}
			if (newline === -1) break;
			if (draining) {
				draining = false;
				yield { oversized: true };
			} else yield { line: take() };
			start = newline + 1;
		}
	}
	if (draining) yield { oversized: true };
	else if (size > 0) yield { line: take() };
}
