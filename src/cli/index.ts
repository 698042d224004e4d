// argv → command. This file and what it imports stay light (no arktype, no SQLite) so that
// `--version` and `--help` answer at once; each command's module is imported only when it runs.
import { didYouMean, quoted, suggestion } from "../domain/text.ts";
import { VERSION } from "../version.ts";
import { type FlagSpec, type Flags, parseFlags, UsageError } from "./args.ts";
import type { CommandRun } from "./command.ts";

interface Command {
	name: string;
	usage: string;
	summary: string;
	flags: Record<string, FlagSpec>;
	load: () => Promise<CommandRun>;
	/** The flags bare arguments fill, in order (`agents enable ID`, `answer REQUEST TEXT`). */
	positional?: string | readonly string[];
	/** Takes a command line after `--` (`sessions launch … -- CMD ARGS`). */
	rest?: true;
}

const COMMON: Record<string, FlagSpec> = {
	root: { kind: "string", value: "DIR", help: "project directory (default .)" },
	help: { kind: "boolean", help: "show this help" },
};

const json: FlagSpec = { kind: "boolean", help: "print JSON" };

/** The loader of a module's commands: each is imported only when it runs. */
const loader =
	<M>(module: () => Promise<M>) =>
	(name: keyof M) =>
	() =>
		module().then((m) => m[name] as CommandRun);

const COMMANDS: Command[] = [
	{
		name: "init",
		usage: "roundtable init [--force] [--client codex|claude|codex,claude]",
		summary:
			"Create .roundtable/ with the config, policy, agent protocol and generated MCP assets, the database and the configured agents. Running it again changes nothing and says so; files you edited are kept unless --force.",
		flags: {
			force: { kind: "boolean", help: "overwrite starter files you edited" },
			client: {
				kind: "string",
				value: "NAME",
				help: "also write the project-local MCP entry for codex (.codex/config.toml), claude (.mcp.json), or both (codex,claude)",
			},
		},
		load: () => import("./init.ts").then((m) => m.init),
	},
	{
		name: "start",
		usage: "roundtable start [--interval 1s] [--address HOST:PORT | --port N]",
		summary:
			"Run the project's owner: Streamable HTTP MCP at http://<mcp.http_address>/mcp, the legacy socket, and /healthz. Prints one ready line; SIGINT or SIGTERM drains calls in flight and stops. One owner per project.",
		flags: {
			interval: { kind: "duration", value: "DURATION", help: "how often the Chair ticks (default 1s)" },
			address: {
				kind: "string",
				value: "HOST:PORT",
				help: "where HTTP listens for this run, instead of mcp.http_address",
			},
			port: {
				kind: "integer",
				value: "N",
				help: "the port on mcp.http_address's host for this run (0: the system chooses)",
			},
		},
		load: () => import("./start.ts").then((m) => m.start),
	},
	{
		name: "run",
		usage:
			"roundtable run [--run ID] [--goal TEXT] [--scope PATH,…] [--resume] [--autopilot] [--headless] [--interval 1s] [--max-iterations N]",
		summary:
			"Create a run (or continue an active one; --resume makes an ended one active again) and drive it. With a live `roundtable start` owner, its Chair ticks the run; otherwise this process is the owner (HTTP, socket, Chair) while it runs. --headless ticks N times (default 1), prints where the run stands and exits 0; interactive shows a live terminal view until q or Ctrl-C.",
		flags: {
			run: {
				kind: "string",
				value: "ID",
				help: "the run (default: a new RUN- id; with --resume, the latest run)",
			},
			goal: { kind: "string", value: "TEXT", help: "what the run is for" },
			scope: {
				kind: "string",
				value: "PATH,…",
				help: "the folders and files the run's work lies in, comma-separated (default: the whole repository); the Architect's tasks read only inside them",
			},
			resume: { kind: "boolean", help: "make an ended run active again" },
			autopilot: {
				kind: "boolean",
				help: "the Chair starts the run's sessions (implementers, reviewers, the Architect); Ctrl-C stops them; headless, runs until the run ends",
			},
			headless: { kind: "boolean", help: "no terminal view: tick, print the outcome, exit" },
			interval: { kind: "duration", value: "DURATION", help: "how often the Chair ticks (default 1s)" },
			"max-iterations": {
				kind: "integer",
				value: "N",
				help: "headless: ticks of this run before exiting (default 1)",
			},
		},
		load: () => import("./run.ts").then((m) => m.run),
	},
	{
		name: "mcp serve",
		usage: "roundtable mcp serve",
		summary: "Run the owner with the legacy Unix socket only: no HTTP, no Chair.",
		flags: {},
		load: () => import("./start.ts").then((m) => m.serve),
	},
	{
		name: "mcp stdio",
		usage: "roundtable mcp stdio [--url URL] [--autostart]",
		summary:
			"An MCP stdio server for clients that launch one (Codex, Claude Code), relaying to the project's owner over HTTP. The bearer token, if any, comes from ROUNDTABLE_MCP_TOKEN.",
		flags: {
			url: {
				kind: "string",
				value: "URL",
				help: "the owner's MCP endpoint (default: the live owner, else the configured address)",
			},
			autostart: { kind: "boolean", help: "start an owner in the background when none answers" },
		},
		load: () => import("./stdio.ts").then((m) => m.stdio),
	},
	{
		name: "mcp inspect",
		usage: "roundtable mcp inspect [--json] [--write] [--markdown] [--permissions]",
		summary:
			"List the tools agents see (operator and internal tools are in docs/tools.md or unlisted). --json prints [{name, mutates}]; --write regenerates the MCP assets in .roundtable/mcp/; --markdown prints the tool reference (docs/tools.md); --permissions who may call what with a capability (docs/permissions.md).",
		flags: {
			json,
			write: {
				kind: "boolean",
				help: "regenerate .roundtable/mcp/{tools.schema.json,server.json,AGENT_MCP_MANIFEST.md}",
			},
			markdown: { kind: "boolean", help: "print the Markdown tool reference" },
			permissions: { kind: "boolean", help: "print the Markdown permissions reference" },
		},
		load: () => import("./mcp.ts").then((m) => m.inspect),
	},
	{
		name: "mcp call",
		usage: "roundtable mcp call --tool NAME [--args JSON | --args-file FILE] [--socket | --direct]",
		summary:
			'Call one tool: through the running owner\'s socket when one runs (fast), else in this process. Prints the result JSON; on failure prints {"error":{code,message,details}} on stderr and exits 1.',
		flags: {
			socket: { kind: "boolean", help: "only through the running owner; fail when none runs" },
			direct: { kind: "boolean", help: "in this process, even beside a running owner" },
			tool: { kind: "string", value: "NAME", help: "tool name, e.g. task.create" },
			args: { kind: "string", value: "JSON", help: "arguments as a JSON object" },
			"args-file": {
				kind: "string",
				value: "FILE",
				help: "read the arguments from a JSON file (- for stdin)",
			},
		},
		load: () => import("./call.ts").then((m) => m.callTool),
	},
	{
		name: "table",
		usage: "roundtable table [--json]",
		summary: "Print the table: runs, agents and tasks, and counts of everything else.",
		flags: { json: { kind: "boolean", help: "print table.get_state as JSON" } },
		load: () => import("./table.ts").then((m) => m.table),
	},
	{
		name: "watch",
		usage: "roundtable watch [--run ID] [--limit N] [--follow] [--json]",
		summary:
			"Print what needs attention and the newest events. --follow then prints every new event as it happens, following the event cursor so none is skipped, until interrupted.",
		flags: {
			run: { kind: "string", value: "ID", help: "only events of this run" },
			limit: { kind: "integer", value: "N", help: "events in the first page (default 10, at most 200)" },
			follow: { kind: "boolean", help: "keep printing new events" },
			json: { kind: "boolean", help: "print JSON (with --follow: one event per line)" },
		},
		load: () => import("./table.ts").then((m) => m.watch),
	},
	...claimsCommands(),
	...approvalsCommands(),
	...taskCommands(),
	...peerCommands(),
	...sessionsCommands(),
	...testsCommands(),
	...agentsCommands(),
	{
		name: "symbols",
		usage: "roundtable symbols --path P [--json]",
		summary:
			"List the functions, classes, methods, interfaces, types and constants declared in a file, or in every TypeScript, TSX, JavaScript, Python and Go file under a directory: one `<kind> <name> <path> <start> <end>` line each. Syntax errors go to stderr as `<path>:<line>: <message>`; the symbols that parsed are still listed.",
		flags: {
			path: {
				kind: "string",
				value: "PATH",
				help: "a file or directory, relative to the project root (required)",
			},
			json: { kind: "boolean", help: "print the repo.symbols result as JSON" },
		},
		load: () => import("./symbols.ts").then((m) => m.symbols),
	},
];

function agentsCommands(): Command[] {
	const load = loader(() => import("./agents.ts"));
	const list = {
		summary: "List the agents, one `<id> <role> <enabled|disabled> <adapter> <model>` line each.",
		flags: { json },
		load: load("list"),
	};
	const agent: FlagSpec = { kind: "string", value: "ID", help: "the agent (or give it as the argument)" };
	return [
		{ name: "agents", usage: "roundtable agents [--json]", ...list },
		{ name: "agents list", usage: "roundtable agents list [--json]", ...list },
		{
			name: "agents enable",
			usage: "roundtable agents enable ID [--json]",
			summary:
				"Enable an agent as the operator. An agent the config removed is refused: put it back in the config instead.",
			flags: { agent, json },
			positional: "agent",
			load: load("enable"),
		},
		{
			name: "agents disable",
			usage: "roundtable agents disable ID [--json]",
			summary:
				"Disable an agent as the operator; config sync never enables it again, only `agents enable` does.",
			flags: { agent, json },
			positional: "agent",
			load: load("disable"),
		},
	];
}

function taskCommands(): Command[] {
	const load = loader(() => import("./tasks.ts"));
	const list = {
		summary: "List tasks, one `<id> <status> <assignee> <run> <title>` line each, in priority order.",
		flags: {
			status: {
				kind: "string",
				value: "S",
				help: "only this status (proposed: what the Architect proposed)",
			},
			run: { kind: "string", value: "ID", help: "only this run's" },
			json,
		},
		load: load("list"),
	} satisfies Omit<Command, "name" | "usage">;
	const decision = {
		flags: {
			task: { kind: "string", value: "ID", help: "the task" },
			reason: { kind: "string", value: "TEXT", help: "why" },
			json,
		},
		positional: "task",
	} satisfies Pick<Command, "flags" | "positional">;
	return [
		{ name: "tasks", usage: "roundtable tasks [--status S] [--run ID] [--json]", ...list },
		{ name: "tasks list", usage: "roundtable tasks list [--status S] [--run ID] [--json]", ...list },
		{
			name: "tasks open",
			usage: "roundtable tasks open ID [--reason TEXT]",
			summary:
				"Open a task (one the Architect proposed): the Chair assigns it and, with the autopilot, starts its implementer.",
			...decision,
			load: load("open"),
		},
		{
			name: "tasks cancel",
			usage: "roundtable tasks cancel ID [--reason TEXT]",
			summary: "Cancel a task (one the Architect proposed, say): nothing starts on it.",
			...decision,
			load: load("cancel"),
		},
	];
}

function approvalsCommands(): Command[] {
	const load = loader(() => import("./approvals.ts"));
	const decision = {
		approval: { kind: "string", value: "ID", help: "the request (H-…)" },
		decision: { kind: "string", value: "TEXT", help: "your reasoning" },
		json,
	} satisfies Record<string, FlagSpec>;
	return [
		{
			name: "approvals list",
			usage: "roundtable approvals list [--status requested|approved|rejected] [--proposal ID] [--json]",
			summary: "List human approvals, one `<id> <status> <proposal> r<revision> <subject>` line each.",
			flags: {
				status: { kind: "string", value: "S", help: "only this status" },
				proposal: { kind: "string", value: "ID", help: "only this proposal's" },
				json,
			},
			load: load("list"),
		},
		{
			name: "approvals approve",
			usage: "roundtable approvals approve --approval ID [--decision TEXT] [--override-policy]",
			summary: "Approve a request as the operator. --override-policy also overrides a security veto.",
			flags: { ...decision, "override-policy": { kind: "boolean", help: "also override a security veto" } },
			load: load("approve"),
		},
		{
			name: "approvals reject",
			usage: "roundtable approvals reject --approval ID [--decision TEXT]",
			summary: "Reject a request as the operator; a rejection revokes an earlier approval.",
			flags: decision,
			load: load("reject"),
		},
	];
}

function peerCommands(): Command[] {
	const load = loader(() => import("./peers.ts"));
	const as = {
		kind: "string",
		value: "AGENT",
		help: "act as this agent (default: operator)",
	} satisfies FlagSpec;
	return [
		{
			name: "inbox",
			usage: "roundtable inbox [--as AGENT] [--all] [--follow] [--json]",
			summary:
				"What is addressed to you: open questions (`ASK <id> <from> → <to> open: …`), human approvals awaiting a decision, and unread messages (`MSG …`). --follow then prints each new one as it arrives, until interrupted. Reading does not mark read.",
			flags: {
				as,
				all: { kind: "boolean", help: "read messages too, not only unread ones" },
				follow: { kind: "boolean", help: "keep printing what arrives" },
				json,
			},
			load: load("inbox"),
		},
		{
			name: "ask",
			usage:
				'roundtable ask --to AGENT "QUESTION" [--task ID] [--proposal ID] [--wait DURATION] [--as AGENT] [--json]',
			summary:
				"Ask an agent a question (peer.ask); prints the request. With --wait, waits that long for an answer and prints it; still unanswered, exit 3 (the request stays open).",
			flags: {
				to: { kind: "string", value: "AGENT", help: "who answers" },
				question: { kind: "string", value: "TEXT", help: "the question (or the bare argument)" },
				task: { kind: "string", value: "ID", help: "the task it is about" },
				proposal: { kind: "string", value: "ID", help: "the proposal it is about" },
				wait: { kind: "duration", value: "DURATION", help: "wait this long for an answer (at most 30s)" },
				as,
				json,
			},
			positional: "question",
			load: load("ask"),
		},
		{
			name: "answer",
			usage: 'roundtable answer REQUEST "ANSWER" [--late] [--as AGENT] [--json]',
			summary:
				"Answer a question addressed to you (peer.answer); --late replies to a cancelled one (peer.reply_late), which stays cancelled.",
			flags: {
				request: { kind: "string", value: "ID", help: "the request (Q-…)" },
				text: { kind: "string", value: "TEXT", help: "the answer (or the second bare argument)" },
				late: { kind: "boolean", help: "reply to a cancelled request" },
				as,
				json,
			},
			positional: ["request", "text"],
			load: load("answer"),
		},
	];
}

function testsCommands(): Command[] {
	const load = loader(() => import("./tests.ts"));
	const list = {
		summary:
			"List the recorded test runs, newest first, one `<id> <status> <exit code or signal> <duration> <proposal@revision or project> <sandboxed|unsandboxed> <command>` line each. Subcommand: tests show.",
		flags: {
			proposal: { kind: "string", value: "ID", help: "only this proposal's" },
			status: { kind: "string", value: "S", help: "only this status (passed, failed, timed_out, …)" },
			limit: { kind: "integer", value: "N", help: "at most this many (default 20)" },
			json,
		},
		load: load("list"),
	} satisfies Partial<Command>;
	const usage = "[--proposal ID] [--status S] [--limit N] [--json]";
	return [
		{ name: "tests", usage: `roundtable tests ${usage}`, ...list },
		{ name: "tests list", usage: `roundtable tests list ${usage}`, ...list },
		{
			name: "tests show",
			usage: "roundtable tests show ID [--json]",
			summary:
				"A test run's line, its sandbox (and why it had none), then its whole log (runs are made with the test.run tool).",
			flags: { "test-run": { kind: "string", value: "ID", help: "the run (TR-…)" }, json },
			positional: "test-run",
			load: load("show"),
		},
	];
}

function sessionsCommands(): Command[] {
	const load = loader(() => import("./sessions.ts"));
	const session: FlagSpec = { kind: "string", value: "ID", help: "the session (required)" };
	/** What a minted or launched session is bound to, and for how long. */
	const binding: Record<string, FlagSpec> = {
		task: { kind: "string", value: "T", help: "bind it to this task (assigned to the agent)" },
		proposal: { kind: "string", value: "P", help: "bind it to this open proposal" },
		run: { kind: "string", value: "R", help: "bind it to this active run" },
		ttl: {
			kind: "integer",
			value: "SECONDS",
			help: "how long its capability works (default sessions.capability_ttl_seconds)",
		},
	};
	const list = {
		summary:
			"List the agent sessions, one `<id> <agent> <status> <adapter> <resume_command or ->` line each; a minted one adds `<role> <binding> capability <until T | expired T | revoked T>`. Subcommands: sessions mint, revoke, register, heartbeat, end.",
		flags: { json },
		load: load("list"),
	};
	return [
		{ name: "sessions", usage: "roundtable sessions [--json]", ...list },
		{ name: "sessions list", usage: "roundtable sessions list [--json]", ...list },
		{
			name: "sessions mint",
			usage:
				"roundtable sessions mint --agent ID [--task T] [--proposal P] [--run R] [--ttl SECONDS] [--json]",
			summary:
				"Open a session for an agent with a new capability (its bearer token) and print the capability once on stdout; the session (id, role, binding, expiry) goes to stderr. --task must be assigned to the agent, --proposal must be open, --run active. Only the capability's SHA-256 is stored: it cannot be shown again.",
			flags: {
				agent: { kind: "string", value: "ID", help: "the agent it acts for (required)" },
				...binding,
				json: { kind: "boolean", help: "print {capability, session} as JSON" },
			},
			load: load("mint"),
		},
		{
			name: "sessions launch",
			usage:
				"roundtable sessions launch --agent ID [--task T] [--proposal P] [--run R] [--ttl SECONDS] [--adapter NAME] [--prompt TEXT] [-- CMD ARGS…]",
			summary:
				"Run an agent in a session of its own: mint its capability, have the owner (started if none runs) serve the session's private MCP socket, and run the adapter's CLI (codex, claude, gemini) configured for it (Roundtable's tools, edits without asking, its own outside traffic off), or CMD ARGS after --, in a sandbox where it works: nothing of this machine but the system, its tools and its workspace (for a session bound to a task, a private copy of the files the task may read, which it edits and proposes with workspace.propose; else an empty folder), a private home with a copy of its login, the network only to its adapter's egress hosts. Stays in the foreground; when the agent exits the session closes (capability revoked, socket removed, claims by their resume_policy) and the exit status is the agent's.",
			flags: {
				agent: { kind: "string", value: "ID", help: "the agent it runs as (required)" },
				...binding,
				adapter: { kind: "string", value: "NAME", help: "the CLI to run (default: the agent's adapter)" },
				prompt: { kind: "string", value: "TEXT", help: "the agent's first message, given to its CLI" },
			},
			rest: true,
			load: load("launch"),
		},
		{
			name: "sessions start",
			usage:
				"roundtable sessions start --agent ID [--task T] [--proposal P] [--run R] [--adapter NAME] [--prompt TEXT]",
			summary:
				"Start an agent's CLI unattended, in the owner (started in the background if none runs): the same session, sandbox and workspace as sessions launch, the adapter's headless form, a prompt (--prompt, else one that says who it is and to start with agent.brief). Prints the session's id at once; its output is the session's transcript (sessions log ID --follow). It ends at the agent's exit, at sessions.max_wall_seconds, or at sessions stop.",
			flags: {
				agent: { kind: "string", value: "ID", help: "the agent it runs as (required)" },
				task: binding.task as FlagSpec,
				proposal: binding.proposal as FlagSpec,
				run: binding.run as FlagSpec,
				adapter: { kind: "string", value: "NAME", help: "the CLI to run (default: the agent's adapter)" },
				prompt: { kind: "string", value: "TEXT", help: "the agent's first message" },
			},
			load: load("start"),
		},
		{
			name: "sessions stop",
			usage: "roundtable sessions stop ID",
			summary:
				"Stop a headless session: SIGTERM to its agent, which may finish, SIGKILL 10 s later; the session then closes as at any end.",
			flags: { session },
			positional: "session",
			load: load("stop"),
		},
		{
			name: "sessions log",
			usage: "roundtable sessions log ID [--follow]",
			summary:
				"Print a session's transcript: what its agent wrote to stdout and stderr when it was launched without a terminal (kept in .roundtable/transcripts/, at most sessions.log_bytes, the newest; its capability and the operator's token redacted). --follow keeps printing until the session ends.",
			flags: { session, follow: { kind: "boolean", help: "keep printing until the session ends" } },
			positional: "session",
			load: load("log"),
		},
		{
			name: "sessions revoke",
			usage: "roundtable sessions revoke ID",
			summary:
				"Revoke a minted session's capability at once (it authenticates nobody from now on) and end the session.",
			flags: { session, json },
			positional: "session",
			load: load("revoke"),
		},
		{
			name: "sessions register",
			usage:
				"roundtable sessions register --id ID --agent ID --run ID --adapter NAME --cwd DIR [--provider P] [--model M] [--external-session-id X] [--resume-command CMD] [--mcp-socket PATH] [--status active|idle]",
			summary:
				"Record an agent's external session (or replace one recorded before under the same id). Without --resume-command, an adapter whose config has a resume_pattern gets its {{external_session_id}} filled in. Prints `<id> <agent> <status> <resume_command or ->`.",
			flags: {
				id: { kind: "string", value: "ID", help: "the session id (required)" },
				agent: { kind: "string", value: "ID", help: "the agent it runs (required)" },
				run: { kind: "string", value: "ID", help: "the run it works in (required)" },
				adapter: { kind: "string", value: "NAME", help: "a configured adapter: codex, claude, … (required)" },
				cwd: { kind: "string", value: "DIR", help: "its working directory (required)" },
				provider: { kind: "string", value: "P", help: "the model provider" },
				model: { kind: "string", value: "M", help: "the model" },
				"external-session-id": { kind: "string", value: "X", help: "the client's own session id" },
				"resume-command": { kind: "string", value: "CMD", help: "how to resume it (default: the adapter's)" },
				"mcp-socket": { kind: "string", value: "PATH", help: "the MCP socket it talks to" },
				status: { kind: "string", value: "S", help: "active (default) or idle" },
				json,
			},
			load: load("register"),
		},
		{
			name: "sessions heartbeat",
			usage: "roundtable sessions heartbeat --session ID [--status active|idle] [--external-session-id X]",
			summary:
				"Mark a session as seen now, optionally with a new status or external id. Prints `<id> <status> <last_seen_at>`. Only a change of status or external id is an event (session.heartbeat); plain heartbeats are not, so they never flood the event log.",
			flags: {
				session,
				status: { kind: "string", value: "S", help: "active or idle" },
				"external-session-id": { kind: "string", value: "X", help: "the client's own session id" },
				json,
			},
			load: load("heartbeat"),
		},
		{
			name: "sessions end",
			usage: "roundtable sessions end --session ID",
			summary: "End a session (event session.ended). Prints `<id> ended <ended_at>`.",
			flags: { session, json },
			load: load("end"),
		},
		{
			name: "resume",
			usage: "roundtable resume (--session ID | --agent ID) [--json]",
			summary:
				"Brief an agent coming back: pick the session (--agent: its active one, else the one seen last), suspend its claims whose resource changed, and print the Markdown resume briefing, agent.brief's (current task, active claims, pending proposals with their gates, open questions to and from it, unread messages, latest decisions, required next action), then the claims it suspended.",
			flags: {
				session: { kind: "string", value: "ID", help: "the session to resume" },
				agent: { kind: "string", value: "ID", help: "resume this agent's latest session" },
				json: { kind: "boolean", help: "print the briefing as JSON" },
			},
			load: load("resume"),
		},
	];
}

function claimsCommands(): Command[] {
	const load = loader(() => import("./claims.ts"));
	return [
		{
			name: "claims list",
			usage: "roundtable claims list [--agent ID] [--resource ID] [--task ID] [--status S] [--json]",
			summary: "List claims, one `<id> <agent> <type> <status> <resource>` line each.",
			flags: {
				agent: { kind: "string", value: "ID", help: "only this agent's claims" },
				resource: { kind: "string", value: "ID", help: "only claims on this resource" },
				task: { kind: "string", value: "ID", help: "only claims for this task" },
				status: { kind: "string", value: "S", help: "active, suspended, expired, released or revoked" },
				json,
			},
			load: load("list"),
		},
		{
			name: "claims claim",
			usage:
				"roundtable claims claim --agent ID --task ID --resource-type T --resource-id R [--path P] [--symbol S] [--claim-type write] [--ttl N] [--rationale TEXT]",
			summary: "Take a claim for an agent (resource.claim).",
			flags: {
				agent: { kind: "string", value: "ID", help: "the claiming agent" },
				task: { kind: "string", value: "ID", help: "the task it serves" },
				"resource-type": { kind: "string", value: "T", help: "file, directory, symbol, …" },
				"resource-id": { kind: "string", value: "R", help: "e.g. file:src/app.ts" },
				path: { kind: "string", value: "P", help: "repository-relative path" },
				symbol: { kind: "string", value: "S", help: "symbol name (symbol claims)" },
				"claim-type": { kind: "string", value: "MODE", help: "read, write (default), review or exclusive" },
				ttl: { kind: "integer", value: "N", help: "lease in seconds" },
				rationale: { kind: "string", value: "TEXT", help: "why" },
				json,
			},
			load: load("claim"),
		},
		{
			name: "claims release",
			usage: "roundtable claims release --claim ID (--agent ID | --force --reason TEXT)",
			summary: "Release a claim as its holder, or force it as the operator with a reason.",
			flags: {
				claim: { kind: "string", value: "ID", help: "the claim" },
				agent: { kind: "string", value: "ID", help: "its holder" },
				force: { kind: "boolean", help: "release someone else's claim (operator)" },
				reason: { kind: "string", value: "TEXT", help: "why (required with --force)" },
				json,
			},
			load: load("release"),
		},
		{
			name: "claims revoke",
			usage: "roundtable claims revoke --claim ID --reason TEXT",
			summary: "Revoke a live claim (operator action); the event records the reason.",
			flags: {
				claim: { kind: "string", value: "ID", help: "the claim" },
				reason: { kind: "string", value: "TEXT", help: "why" },
				json,
			},
			load: load("revoke"),
		},
		{
			name: "claims expire",
			usage: "roundtable claims expire [--at TIME]",
			summary: "Record every claim whose lease ran out (by now, or by --at) as expired, with events.",
			flags: { at: { kind: "string", value: "TIME", help: "an RFC 3339 time instead of now" }, json },
			load: load("expire"),
		},
		{
			name: "claims reconcile",
			usage: "roundtable claims reconcile [--agent ID]",
			summary: "Suspend live write and exclusive claims whose resource changed since they were taken.",
			flags: { agent: { kind: "string", value: "ID", help: "only this agent's claims" }, json },
			load: load("reconcile"),
		},
	];
}

function commandHelp(c: Command): string {
	const flags = { ...c.flags, ...COMMON };
	const width = Math.max(
		...Object.entries(flags).map(([n, f]) => n.length + (f.value ? f.value.length + 1 : 0)),
	);
	const lines = Object.entries(flags).map(([n, f]) => {
		const left = f.value ? `${n} ${f.value}` : n;
		return `  --${left.padEnd(width)}  ${f.help}`;
	});
	return `usage: ${c.usage} [--root DIR]\n\n${c.summary}\n\nflags:\n${lines.join("\n")}\n`;
}

function mainHelp(): string {
	const width = Math.max(...COMMANDS.map((c) => c.name.length));
	return `roundtable ${VERSION}: a coordination server for teams of coding agents on one repository

usage: roundtable <command> [flags]

commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.usage.replace(`roundtable ${c.name}`, "").trim()}`).join("\n")}

Every command takes --root DIR (default .) and --help. roundtable --version prints the version.
`;
}

/** Every command's name and the flags it takes (its own and the common ones): what the docs may name. */
export function commandFlags(): Map<string, string[]> {
	return new Map(COMMANDS.map((c) => [c.name, [...Object.keys(c.flags), ...Object.keys(COMMON)]]));
}

/** Runs the CLI; resolves with the exit code (0 ok, 1 failed, 2 unusable arguments). */
export async function main(argv: readonly string[]): Promise<number> {
	const [first, second] = argv;
	if (first === undefined || first === "--help" || first === "-h" || first === "help") {
		process.stdout.write(mainHelp());
		return first === undefined ? 2 : 0;
	}
	// Inside a launched agent's sandbox, before the agent: not a command anyone types (see launch.ts).
	if (first?.startsWith("__sandbox") && second !== undefined) {
		const { forwardAndRun, SANDBOX_FORWARD } = await import("../sandbox/forward.ts");
		if (first === SANDBOX_FORWARD) return forwardAndRun(second, argv.slice(argv.indexOf("--") + 1));
	}
	if (first === "--version" || first === "-v") {
		process.stdout.write(`roundtable ${VERSION}\n`);
		return 0;
	}
	const twoWords = `${first} ${second ?? ""}`;
	const group = COMMANDS.filter((c) => c.name.startsWith(`${first} `));
	let command = COMMANDS.find((c) => c.name === twoWords) ?? COMMANDS.find((c) => c.name === first);
	// `sessions regster`: a group's own command takes no word after it, so that word was a subcommand.
	if (command?.name === first && !command.positional && group.length > 0 && /^[a-z]/.test(second ?? "")) {
		command = undefined;
	}
	if (!command) {
		if (group.length > 0 && (second === undefined || second === "--help" || second === "-h")) {
			// `roundtable claims` or `roundtable mcp --help`: the group's commands.
			const width = Math.max(...group.map((c) => c.name.length));
			const out = group
				.map((c) => `  ${c.name.padEnd(width)}  ${c.summary.split(". ")[0]?.replace(/\.$/, "")}.`)
				.join("\n");
			(second === undefined ? process.stderr : process.stdout).write(
				`usage: roundtable ${first} <command>\n\n${out}\n`,
			);
			return second === undefined ? 2 : 0;
		}
		const names = COMMANDS.map((c) => c.name);
		// `claim list` is nearer to `claims list` than `claim` is to anything.
		const pair = second === undefined ? undefined : didYouMean(twoWords, names);
		const wanted = group.length > 0 || pair !== undefined ? twoWords.trim() : first;
		const near = pair ?? didYouMean(wanted, names);
		const subcommands = group.map((c) => c.name.slice(first.length + 1)).join(", ");
		const hint =
			near === undefined && group.length > 0 ? `; ${first} takes ${subcommands}` : suggestion(near);
		process.stderr.write(`roundtable: unknown command ${quoted(wanted)}${hint}; see roundtable --help\n`);
		return 2;
	}
	const args = argv.slice(command.name.split(" ").length);
	const dashes = command.rest ? args.indexOf("--") : -1;
	const rest = dashes === -1 ? undefined : args.slice(dashes + 1);
	let flags: Flags;
	try {
		if (rest?.length === 0) throw new UsageError("-- must be followed by a command");
		flags = parseFlags(
			dashes === -1 ? args : args.slice(0, dashes),
			{ ...command.flags, ...COMMON },
			command.positional,
		);
	} catch (err) {
		if (!(err instanceof UsageError)) throw err;
		process.stderr.write(`roundtable ${command.name}: ${err.message}\n${commandHelp(command)}`);
		return 2;
	}
	if (flags.help) {
		process.stdout.write(commandHelp(command));
		return 0;
	}
	const module = await command.load();
	try {
		return await module.run({ ...flags, root: (flags.root as string | undefined) ?? "." }, rest);
	} catch (err) {
		if (err instanceof UsageError) {
			process.stderr.write(`roundtable ${command.name}: ${err.message}\n${commandHelp(command)}`);
			return 2;
		}
		process.stderr.write(`roundtable ${command.name}: ${err instanceof Error ? err.message : String(err)}\n`);
		return 1;
	}
}
