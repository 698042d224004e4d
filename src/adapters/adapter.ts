// What a launch tells an agent CLI's adapter, and what the adapter answers.

/** The name Roundtable's MCP server has in every client's configuration. */
export const SERVER_NAME = "roundtable";

/** What a launch tells an adapter. */
export interface ClientLaunch {
	/** The session's folder on the host (files written here), and where the agent sees it. */
	dir: string;
	dirInside: string;
	/** The command the CLI runs as its Roundtable MCP server (the stdio bridge). */
	bridge: { command: string; args: string[] };
	/** The variables the bridge must get from the CLI's environment. */
	variables: readonly string[];
	/** In Roundtable's sandbox: the CLI's own approvals and sandbox would only stand in the way. */
	sandboxed: boolean;
	/** The first message to the agent, if any. */
	prompt?: string;
	/** Without a terminal: the CLI's one-shot form, which takes the prompt and runs to its end. */
	headless: boolean;
}

/** The CLI's argv and the variables it needs set; files it reads are written into `dir`. */
export interface ClientCommand {
	argv: string[];
	env: Record<string, string>;
	/** Files written into the session's folder that the sandbox must show at `dirInside`. */
	files: string[];
}

export type Adapter = (base: string[], launch: ClientLaunch) => ClientCommand;
