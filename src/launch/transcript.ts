// A headless session's transcript: what its agent wrote to stdout and stderr, kept under
// .roundtable/transcripts/<session>.log after the session's folder is gone. Bounded: past
// `maxBytes` only the newest part is kept (the tail is what tells why a session ended). Redacted: the
// session's capability and the operator's tokens never reach the file, even split across writes.
import { closeSync, openSync, readFileSync, renameSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import { privateDir } from "../sessions/paths.ts";

const REDACTED = "[redacted]";

/**
 * One stream of what the agent writes (stdout, stderr), redacted on its own: a secret split across
 * its writes is caught however the other stream's writes fall between them.
 */
export class Channel {
	/** The end of the text seen so far, held back while a secret could still be completing there. */
	private carry = "";
	private readonly decoder = new TextDecoder();

	constructor(private readonly t: Transcript) {}

	/** Takes what the agent wrote; writes all of it that can no longer be the start of a secret. */
	write(chunk: Uint8Array): void {
		const text = this.t.redact(this.carry + this.decoder.decode(chunk, { stream: true }));
		// Held back: only an end that could be the start of a secret (so a follower sees the rest now).
		const held = this.t.heldBack(text);
		this.carry = text.slice(text.length - held);
		this.t.append(text.slice(0, text.length - held));
	}

	/** Writes what was held back. */
	flush(): void {
		const rest = this.t.redact(this.carry + this.decoder.decode());
		this.carry = "";
		this.t.append(rest);
	}
}

export class Transcript {
	private fd: number;
	private size = 0;
	private readonly hold: number;
	private readonly channels: Channel[] = [];

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

	/** A stream of the agent's output into this transcript. */
	channel(): Channel {
		const c = new Channel(this);
		this.channels.push(c);
		return c;
	}

	/** A line of Roundtable's own (a retry's mark), redacted like the rest. */
	note(line: string): void {
		this.append(this.redact(`${line}\n`));
	}

	/** Writes what every stream held back, and closes the file. */
	close(): void {
		for (const c of this.channels) c.flush();
		closeSync(this.fd);
	}

	redact(text: string): string {
		let out = text;
		for (const secret of this.secrets) if (secret !== "") out = out.replaceAll(secret, REDACTED);
		return out;
	}

	/** How much of the end of `text` could be the start of a secret. */
	heldBack(text: string): number {
		for (let k = Math.min(this.hold, text.length); k > 0; k--) {
			const end = text.slice(text.length - k);
			if (this.secrets.some((secret) => secret.startsWith(end))) return k;
		}
		return 0;
	}

	append(text: string): void {
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
	into: Channel,
	watch?: (chunk: Uint8Array) => void,
): Promise<void> {
	let gone = out === undefined;
	const onError = () => {
		gone = true;
	};
	out?.on("error", onError);
	try {
		for await (const chunk of from) {
			into.write(chunk);
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
