// Every file and folder Roundtable keeps under `.roundtable/` (SPEC §3), relative to the project's
// root. Nothing else spells these paths; what is runtime state is what init's .gitignore lists.
export const DOT = ".roundtable";

export const LAYOUT = {
	/** The configuration (safe to commit). */
	config: `${DOT}/config.yaml`,
	/** The default database (storage.sqlite_path), with its -wal and -shm. */
	database: `${DOT}/roundtable.db`,
	/** The owner's kernel lock, and where the live owner says it listens. */
	ownerLock: `${DOT}/owner.lock`,
	ownerFile: `${DOT}/owner.json`,
	/** The repository lock of applies, rollbacks and recovery. */
	repoLock: `${DOT}/repo.lock`,
	/** The default legacy socket (mcp.socket_path) and the generated MCP assets. */
	mcp: `${DOT}/mcp`,
	socket: `${DOT}/mcp/roundtable.sock`,
	/** Content-addressed patch revisions, apply journals, test logs, the owner's log. */
	patches: `${DOT}/patches`,
	journal: `${DOT}/journal`,
	testlogs: `${DOT}/testlogs`,
	logs: `${DOT}/logs`,
	ownerLog: `${DOT}/logs/owner.log`,
	/** A launched session's folder: its socket and per-launch client configuration. */
	sessions: `${DOT}/sessions`,
	/** What headless sessions' agents wrote (stdout and stderr), bounded, kept after the session. */
	transcripts: `${DOT}/transcripts`,
	/** A launched agent's own $HOME in its sandbox (its CLI's state), one per agent and binding (0700). */
	agentState: `${DOT}/agent-state`,
	/** The operator's HTTP bearer token (0600). */
	operatorToken: `${DOT}/operator.token`,
	/** What init wrote, to tell a user's edit from its own. */
	initState: `${DOT}/init-state.json`,
	gitignore: `${DOT}/.gitignore`,
} as const;
