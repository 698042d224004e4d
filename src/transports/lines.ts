// Newline-delimited frames from a byte stream, with bounded memory: a line longer than the cap is
// reported as oversized and its bytes are drained (not kept) up to the next newline, after which
// reading goes on normally. The splitter takes chunks as they are pushed (a socket's data
// callback); readLines pulls them from a stream (stdin).

export type Frame = { line: Uint8Array } | { oversized: true };

/** A line of nothing but spaces, tabs and CRs: no message, skipped by the MCP line framings. */
export const isBlank = (frame: Frame): boolean =>
	"line" in frame && frame.line.every((b) => b === 0x20 || b === 0x09 || b === 0x0d);

export class LineSplitter {
	private parts: Uint8Array[] = [];
	private size = 0;
	private draining = false;

	constructor(private readonly maxBytes: number) {}

	/**
	 * The frames a chunk completes, in order. An unfinished line waits for the next chunk, copied,
	 * so the caller may reuse the chunk's memory once the frames it yielded are read.
	 */
	*push(chunk: Uint8Array): Generator<Frame> {
		let start = 0;
		while (start < chunk.length) {
			const newline = chunk.indexOf(0x0a, start);
			const end = newline === -1 ? chunk.length : newline;
			if (!this.draining) {
				if (this.size + (end - start) > this.maxBytes) {
					this.draining = true;
					this.parts = [];
					this.size = 0;
				} else if (end > start) {
					this.parts.push(newline === -1 ? chunk.slice(start, end) : chunk.subarray(start, end));
					this.size += end - start;
				}
			}
			if (newline === -1) return;
			start = newline + 1;
			if (this.draining) {
				this.draining = false;
				yield { oversized: true };
			} else yield { line: this.take() };
		}
	}

	/** What the stream left unterminated when it ended, if anything. */
	end(): Frame | undefined {
		if (this.draining) return { oversized: true };
		return this.size > 0 ? { line: this.take() } : undefined;
	}

	private take(): Uint8Array {
		const line = this.parts.length === 1 ? (this.parts[0] as Uint8Array) : Buffer.concat(this.parts);
		this.parts = [];
		this.size = 0;
		return line;
	}
}

export async function* readLines(
	stream: ReadableStream<Uint8Array>,
	maxBytes: number,
): AsyncGenerator<Frame> {
	const splitter = new LineSplitter(maxBytes);
	for await (const chunk of stream) yield* splitter.push(chunk);
	const last = splitter.end();
	if (last) yield last;
}
