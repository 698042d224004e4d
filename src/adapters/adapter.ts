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

export interface Adapter {
	/** The CLI's command line for this launch, from `base` (the configured form, split on blanks). */
	client(base: string[], launch: ClientLaunch): ClientCommand;
	/**
	 * The CLI's own id for its conversation, if this line of its headless output (parsed JSON) names
	 * it: what `headless_resume` resumes when the session is retried.
	 */
	sessionId(event: Record<string, unknown>): string | undefined;
}

/** The string at `key` of a JSON event of type `type` (and `subtype`, when given). */
export const idOf =
	(type: string, key: string, subtype?: string) =>
	(event: Record<string, unknown>): string | undefined =>
		event.type === type &&
		(subtype === undefined || event.subtype === subtype) &&
		typeof event[key] === "string"
			? (event[key] as string)
			: undefined;
