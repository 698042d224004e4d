// Which sandbox a test run gets (tests.sandbox), and its command wrapped in it. The probe runs once
// per process: the owner runs it at start and logs the choice; a run records what it had.
import { constants, homedir } from "node:os";
import type { Config } from "../config/defaults.ts";
import { failedPrecondition } from "../errors.ts";
import { homeInside, sandboxArgv, sandboxHere, toolFolders } from "../sandbox/index.ts";

export type RunSandbox =
	| { sandbox: "bwrap"; sandbox_reason: null; bwrap: string }
	| { sandbox: "none"; sandbox_reason: string };

/** The sandbox a run gets under this config; `required` without a working bwrap is refused (records nothing). */
export function chooseSandbox(tests: Config["tests"]): RunSandbox {
	if (tests.sandbox === "off") return { sandbox: "none", sandbox_reason: "tests.sandbox is off" };
	const here = sandboxHere();
	if (here.kind === "bwrap") return { sandbox: "bwrap", sandbox_reason: null, bwrap: here.bwrap };
	if (tests.sandbox === "required") {
		throw failedPrecondition(`tests.sandbox is required, but ${here.reason}`, {
			sandbox: "none",
			reason: here.reason,
		});
	}
	return { sandbox: "none", sandbox_reason: here.reason };
}

/** One line for the owner's log: the sandbox test runs will have, and why. */
export function describeSandbox(tests: Config["tests"]): string {
	if (tests.sandbox === "off") return "roundtable: test runs are not sandboxed: tests.sandbox is off";
	const here = sandboxHere();
	if (here.kind === "bwrap") {
		return `roundtable: test runs are sandboxed with bubblewrap (${here.reason}; network ${tests.network ? "on" : "off"})`;
	}
	return tests.sandbox === "required"
		? `roundtable: test runs will be refused: tests.sandbox is required, but ${here.reason}`
		: `roundtable: test runs are not sandboxed: ${here.reason}`;
}

export interface RunPlace {
	/** A scratch copy of the project: the one directory the run writes. */
	dir: string;
	/** Hard-linked dependency folders in the copy: read-only, so no shared inode changes. */
	dependencies: string[];
}

export interface Wrapped {
	argv: string[];
	env: Record<string, string>;
	/** Descriptors the spawn passes on as 3, 4, … */
	fds: number[];
	close(): void;
}

/**
 * argv and env as they run: unchanged without a sandbox; with one, wrapped in bubblewrap with only
 * the scratch copy, the tools the command needs and sandbox.expose, a private $HOME and /tmp.
 */
export function wrapCommand(
	choice: RunSandbox,
	argv: string[],
	env: Record<string, string>,
	place: RunPlace,
	config: Pick<Config, "tests" | "sandbox">,
	root: string,
): Wrapped {
	if (choice.sandbox === "none") return { argv, env, fds: [], close: () => {} };
	const home = homeInside(env.HOME);
	const tools = toolFolders([argv[0] as string], { path: env.PATH ?? "", home: homedir(), never: [root] });
	const wrapped = sandboxArgv(choice.bwrap, {
		argv,
		dir: place.dir,
		readOnly: place.dependencies,
		tools: [...tools, ...config.sandbox.expose],
		home: { inside: home },
		network: config.tests.network,
		terminal: "new",
	});
	// The host's TMPDIR is out of reach inside: temporary files go to the private /tmp.
	return { ...wrapped, env: { ...env, HOME: home, TMPDIR: "/tmp" } };
}

const SIGNALS = new Map(Object.entries(constants.signals).map(([name, n]) => [n, name]));

/** bwrap exits 128+N when its command is killed by signal N: the signal, or undefined. */
export function signalOfExit(code: number | null): string | undefined {
	return code !== null && code > 128 ? SIGNALS.get(code - 128) : undefined;
}
