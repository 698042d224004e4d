// A headless session's transcript: what its agent wrote to stdout and stderr, kept under
// .roundtable/transcripts/<session>.log after the session's folder is gone. Bounded: past
// `maxBytes` only the newest part is kept (the tail is what tells why a session ended). Redacted: the
// session's capability and the operator's tokens never reach the file, even split across writes.
import { closeSync, openSync, readFileSync, renameSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { privateDir } from "../sessions/paths.ts";

const REDACTED = "[redacted]";

export class Transcript {
	private fd: number;
	private size = 0;
	/** The end of the text seen so far, held back while a secret could still be completing there. */
	private carry = "";
	private readonly hold: number;
	private readonly decoder = new TextDecoder();

	constructor(
		private readonly path: string,
		private readonly maxBytes: number,
		private readonly secrets: readonly string[],
	) {
		privateDir(join(path, ".."));
		this.fd = openSync(path, "a", 0o600);
		this.size = statSync(path).size;
		this.hold = Math.max(0, ...secrets.map((s) => s.length - 1));
	}

	/** Takes what the agent wrote; writes all of it that can no longer be the start of a secret. */
	write(chunk: Uint8Array): void {
		let text = this.carry + this.decoder.decode(chunk, { stream: true });
		for (const secret of this.secrets) if (secret !== "") text = text.replaceAll(secret, REDACTED);
		// Held back: only an end that could be the start of a secret (so a follower sees the rest now).
		let held = 0;
		for (let k = Math.min(this.hold, text.length); k > 0 && held === 0; k--) {
			const end = text.slice(text.length - k);
			if (this.secrets.some((secret) => secret.startsWith(end))) held = k;
		}
		this.carry = text.slice(text.length - held);
		this.append(text.slice(0, text.length - held));
	}

	/** Writes what was held back, and closes the file. */
	close(): void {
		let rest = this.carry + this.decoder.decode();
		for (const secret of this.secrets) if (secret !== "") rest = rest.replaceAll(secret, REDACTED);
		this.carry = "";
		this.append(rest);
		closeSync(this.fd);
	}

	private append(text: string): void {
		if (text === "") return;
		const bytes = Buffer.from(text);
		writeSync(this.fd, bytes);
		this.size += bytes.length;
		// Over the bound: keep the newest three quarters, from a line's start, written whole
		// beside the file and renamed over it (a reader sees the old file or the new one).
		if (this.size <= this.maxBytes) return;
		closeSync(this.fd);
		const all = readFileSync(this.path);
		let from = all.length - Math.floor((this.maxBytes * 3) / 4);
		const newline = all.indexOf(10, from);
		if (newline !== -1 && newline < all.length - 1) from = newline + 1;
		const kept = Buffer.concat([Buffer.from("[earlier output dropped]\n"), all.subarray(from)]);
		const temp = `${this.path}.tmp`;
		const fd = openSync(temp, "w", 0o600);
		writeSync(fd, kept);
		closeSync(fd);
		renameSync(temp, this.path);
		this.fd = openSync(this.path, "a", 0o600);
		this.size = kept.length;
	}
}

/**
 * Passes what the agent writes on to `out` (none: nowhere) as it comes, and into its transcript. A
 * reader of `out` that went away (a closed pipe) stops only the passing on: the transcript still
 * gets it all, and the agent is never left blocked on a full pipe.
 */
export async function keepOutput(
	from: ReadableStream<Uint8Array>,
	out: NodeJS.WriteStream | undefined,
	transcript: Transcript,
	watch?: (chunk: Uint8Array) => void,
): Promise<void> {
	let gone = out === undefined;
	const onError = () => {
		gone = true;
	};
	out?.on("error", onError);
	try {
		for await (const chunk of from) {
			transcript.write(chunk);
			watch?.(chunk);
			if (gone || out?.write(chunk)) continue;
			// The reader is slow: wait for it, unless it goes away meanwhile.
			await new Promise<void>((resolve) => {
				const done = () => {
					for (const event of ["drain", "error", "close"]) out?.off(event, done);
					resolve();
				};
				for (const event of ["drain", "error", "close"]) out?.once(event, done);
			});
		}
	} finally {
		out?.off("error", onError);
	}
}
