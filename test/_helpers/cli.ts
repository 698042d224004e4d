// The CLI run in this process: `main(argv)` with stdout and stderr captured. For tests of what a
// command prints and changes, where a subprocess is not what is tested (a subprocess costs a
// second of start-up; test/cli.test.ts keeps the real thing). One at a time: the streams are global.
import { main } from "../../src/cli/index.ts";
import type { CliResult } from "./subprocess.ts";

let queue: Promise<unknown> = Promise.resolve();

const text = (chunk: unknown) =>
	typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8");

export function cliHere(args: string[]): Promise<CliResult> {
	const run = async (): Promise<CliResult> => {
		const out: string[] = [];
		const err: string[] = [];
		const stdout = process.stdout.write;
		const stderr = process.stderr.write;
		process.stdout.write = ((chunk: unknown) => out.push(text(chunk)) > 0) as typeof stdout;
		process.stderr.write = ((chunk: unknown) => err.push(text(chunk)) > 0) as typeof stderr;
		try {
			const code = await main(args);
			return { code, stdout: out.join(""), stderr: err.join("") };
		} finally {
			process.stdout.write = stdout;
			process.stderr.write = stderr;
		}
	};
	const result = queue.then(run, run);
	queue = result.catch(() => {});
	return result;
}
