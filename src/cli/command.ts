// What each command module gives the CLI's table of commands (src/cli/index.ts): a run that takes
// the parsed flags and resolves with the exit status.
import type { Flags } from "./args.ts";

export interface CommandRun {
	/** `rest`: what followed `--`, for a command that takes it. */
	run(flags: Flags & { root: string }, rest?: string[]): Promise<number>;
}
