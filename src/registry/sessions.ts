// The sessions family's tools (see FAMILIES in ./types.ts): the operator's record of the external
// agent sessions (Codex, Claude Code, …) and the operator's switch for each agent. Operator only:
// the CLI's `sessions` and `agents` commands call them.

import { callerId, nonBlank } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";
import { eventRecord, sessionRecord, storedAgentRecord } from "../vocabulary/records.ts";
import { tool } from "./types.ts";

const liveStatus = "'active' | 'idle'";
const switchArgs = type({ agent_id: callerId });
const switchOutput = type({ agent: storedAgentRecord(), changed: "boolean" });

export const sessionTools = [
	tool({
		name: "session.register",
		family: "sessions",
		visibility: "operator",
		title: "Register an agent session",
		description: "Record an external agent session working on a run.",
		details:
			"Record (or re-record) an external agent session: its agent, run, adapter and working directory. The resume command comes from the adapter's `resume_pattern` and `external_session_id` unless given. Registering an id again updates it (same agent only) and reopens it. A `session.registered` event.",
		args: () =>
			type({
				session_id: callerId,
				agent_id: callerId,
				run_id: callerId,
				adapter: nonBlank,
				cwd: nonBlank,
				"status?": liveStatus,
				"external_session_id?": callerId,
				"resume_command?": nonBlank,
				"provider?": nonBlank,
				"model?": nonBlank,
				"mcp_socket?": nonBlank,
			}),
		argDocs: {
			session_id: "The session's id.",
			agent_id: "Its agent (enabled).",
			run_id: "The run it works on.",
			adapter: "A configured adapter.",
			cwd: "Its working directory (absolute).",
			status: "active (default) or idle.",
			external_session_id: "The client's own session id.",
			resume_command: "Default from the adapter's resume_pattern.",
			provider: "Model provider.",
			model: "Model.",
			mcp_socket: "Its MCP socket, if any.",
			idempotency_key: "Registers once on retry.",
		},
		output: () => type({ session: sessionRecord() }),
		mutates: true,
		idempotent: true,
	}),
	tool({
		name: "session.heartbeat",
		family: "sessions",
		visibility: "operator",
		title: "Session heartbeat",
		description: "Mark a live session as seen; optionally a new status or external id.",
		details:
			"Update a live session's last-seen time, and optionally its status (active, idle) or external session id (a resume command made from the adapter's pattern follows it). Only a change of status or external id is a `session.heartbeat` event.",
		args: () => type({ session_id: callerId, "status?": liveStatus, "external_session_id?": callerId }),
		argDocs: {
			session_id: "The live session.",
			status: "active or idle.",
			external_session_id: "The client's new session id.",
			idempotency_key: "Beats once on retry.",
			expected_revision: "Session revision you read.",
		},
		output: () => type({ session: sessionRecord() }),
		mutates: true,
		updates: true,
		idempotent: true,
	}),
	tool({
		name: "session.end",
		family: "sessions",
		visibility: "operator",
		title: "End a session",
		description: "End a live session, recording when.",
		details: "End a live session: status ended, `ended_at` now. A `session.ended` event.",
		args: () => type({ session_id: callerId }),
		argDocs: {
			session_id: "The live session.",
			idempotency_key: "Ends once on retry.",
			expected_revision: "Session revision you read.",
		},
		output: () => type({ session: sessionRecord() }),
		mutates: true,
		updates: true,
	}),
	tool({
		name: "agent.enable",
		family: "sessions",
		visibility: "operator",
		title: "Enable an agent",
		description: "Switch an agent the operator disabled back on.",
		details:
			"Enable an agent (an `agent.enabled` event). One already enabled is returned with `changed: false`. One the config removed comes back only by putting it back in the config: that is `failed_precondition`.",
		args: () => switchArgs,
		argDocs: { agent_id: "The agent.", idempotency_key: "Enables once on retry." },
		output: () => switchOutput,
		mutates: true,
		idempotent: true,
	}),
	tool({
		name: "agent.disable",
		family: "sessions",
		visibility: "operator",
		title: "Disable an agent",
		description: "Switch an agent off; config sync keeps it off.",
		details:
			"Disable an agent (an `agent.disabled` event): it can no longer claim, propose, vote or take turns, and config sync never re-enables it. One already disabled is returned with `changed: false`.",
		args: () => switchArgs,
		argDocs: { agent_id: "The agent.", idempotency_key: "Disables once on retry." },
		output: () => switchOutput,
		mutates: true,
		idempotent: true,
	}),
	tool({
		name: "session.mint",
		family: "sessions",
		visibility: "operator",
		title: "Mint a capability session",
		description:
			"Open a session for one agent, bound to a task, proposal or run, for a capability the caller made.",
		details:
			"Open a session for an enabled agent acting in its configured role, bound to `task_id` (which must be assigned to it), `proposal_id` (an open proposal) and/or `run_id` (an active run), for the capability whose SHA-256 is `capability_sha256`: the caller makes the 32 random bytes and keeps them; only the hash is stored, so the capability never passes through a call. It authenticates until `ttl_seconds` (default `sessions.capability_ttl_seconds`) or `session.revoke`, whichever is first; it is never renewed. A `session.minted` event.",
		args: () =>
			type({
				agent_id: callerId,
				capability_sha256: type(/^[0-9a-f]{64}$/).describe("a SHA-256 in lower-case hex"),
				"session_id?": callerId,
				"task_id?": callerId,
				"proposal_id?": callerId,
				"run_id?": callerId,
				"ttl_seconds?": type("1 <= number.integer <= 31536000").describe(
					"a number of seconds from 1 to 31536000 (a year)",
				),
				"endpoint?": "boolean",
				"adapter?": nonBlank,
			}),
		argDocs: {
			agent_id: "The agent it acts for (enabled).",
			capability_sha256: "SHA-256 (hex) of the capability you made.",
			session_id: "Own id (default new S-).",
			task_id: "Bind to this task (assigned to the agent).",
			proposal_id: "Bind to this open proposal.",
			run_id: "Bind to this active run (default the task's or proposal's).",
			ttl_seconds: "Lifetime (default sessions.capability_ttl_seconds).",
			endpoint: "The owner serves the session a private MCP socket (mcp_socket).",
			adapter: "The configured adapter it runs (default the agent's).",
			idempotency_key: "Mints once on retry.",
		},
		output: () => type({ session: sessionRecord() }),
		ownId: "session_id",
		mutates: true,
	}),
	tool({
		name: "session.start",
		family: "sessions",
		visibility: "operator",
		title: "Start a headless session",
		description: "Start an agent's CLI unattended in the owner, in a session of its own; returns at once.",
		details:
			"What `roundtable sessions launch` does, without a terminal and inside the owner: a session and capability for the agent (bound to `task_id`, `proposal_id` and/or `run_id` as session.mint binds), the owner's private socket, the sandbox and workspace, the adapter's headless form and a first message built for it: who the agent is and what it is bound to, how it works (its workspace, claims, workspace.propose), its briefing as agent.brief gives it, the project's AGENTS.ROUNDTABLE.md (at most 16 KiB), then `prompt`. Answers as soon as the session is minted, while the agent works; its output is the session's transcript (`roundtable sessions log`). Its agent runs until it exits or reaches `sessions.max_wall_seconds`; one that fails is started again (up to `sessions.max_attempts`, after `sessions.retry_backoff_ms`, doubling) in the same workspace, resuming its CLI's conversation where the adapter can (`session.started`, `session.exited`, `session.retrying`, `session.gave_up` events); session.stop ends it. Only the owner can start one: without a running owner this is `failed_precondition`.",
		args: () =>
			type({
				agent_id: callerId,
				"task_id?": callerId,
				"proposal_id?": callerId,
				"run_id?": callerId,
				"adapter?": nonBlank,
				"prompt?": type("string <= 32768").describe("at most 32768 characters"),
			}),
		argDocs: {
			agent_id: "The agent to run (enabled).",
			task_id: "Bind to this task (assigned to the agent).",
			proposal_id: "Bind to this open proposal.",
			run_id: "Bind to this active run.",
			adapter: "A configured adapter (default the agent's).",
			prompt: "Added to its first message.",
			idempotency_key: "Starts once on retry.",
		},
		output: () => type({ session: sessionRecord() }),
		mutates: true,
		idempotent: true,
	}),
	tool({
		name: "session.list",
		family: "sessions",
		visibility: "operator",
		title: "List sessions",
		description: "Live and recent sessions, newest first, each with the last line its agent wrote.",
		details:
			"Sessions newest first (`status`: `live` those not ended, `ended`, or `all`), each with its binding, attempt, and, for one launched without a terminal, its transcript's size and last non-blank line (at most 300 characters). Pages with `limit` and `cursor`.",
		args: () =>
			type({
				"status?": "'live' | 'ended' | 'all'",
				"limit?": type("1 <= number.integer <= 500").describe("an integer from 1 to 500"),
				"cursor?": nonBlank,
			}),
		argDocs: {
			status: "live, ended or all (default).",
			limit: "Page size (default 50).",
			cursor: "Previous next_cursor.",
		},
		output: () =>
			type({
				sessions: sessionRecord()
					.merge({ transcript_bytes: "number.integer >= 0", last_line: "string | null" })
					.array(),
				next_cursor: "string | null",
			}),
		mutates: false,
	}),
	tool({
		name: "session.transcript",
		family: "sessions",
		visibility: "operator",
		title: "Read a session's transcript",
		description: "A page of what a headless session's agent wrote (stdout and stderr), secrets redacted.",
		details:
			"A page of the session's transcript (`.roundtable/transcripts/`, the newest `sessions.log_bytes` kept, its capability and the operator's token redacted): `max_bytes` (default 65536) from `offset`, by default the last page; pages start and end on whole characters, and `next_offset` chains them. `live` while the session stands. A session launched at a terminal keeps none (`transcript_bytes` 0).",
		args: () =>
			type({
				session_id: callerId,
				"offset?": "0 <= number.integer <= 9007199254740991",
				"max_bytes?": type("1 <= number.integer <= 1048576").describe("an integer from 1 to 1048576"),
			}),
		argDocs: {
			session_id: "The session.",
			offset: "Byte offset (default: the last page).",
			max_bytes: "Page size (default 65536).",
		},
		output: () =>
			type({
				session_id: "string",
				live: "boolean",
				transcript: "string",
				offset: "number.integer >= 0",
				next_offset: "number.integer >= 0 | null",
				transcript_bytes: "number.integer >= 0",
			}),
		mutates: false,
	}),
	tool({
		name: "session.stop",
		family: "sessions",
		visibility: "operator",
		title: "Stop a headless session",
		description: "Stop a session session.start started: SIGTERM to its agent, SIGKILL 10 s later.",
		details:
			"The agent itself gets SIGTERM and may finish; whatever still runs 10 s later is killed. The session then closes as at any end (capability revoked, claims by their resume_policy, unproposed changes kept as a draft), with the reason `stopped`. `stopping` is false when no headless session of that id runs in this owner.",
		args: () => type({ session_id: callerId }),
		argDocs: { session_id: "The headless session.", idempotency_key: "Stops once on retry." },
		output: () => type({ session_id: "string", stopping: "boolean" }),
		mutates: true,
		idempotent: true,
		destructive: true,
	}),
	tool({
		name: "session.revoke",
		family: "sessions",
		visibility: "operator",
		title: "Revoke a session's capability",
		description: "Revoke a minted session's capability at once; the session ends.",
		details:
			"From now on the capability authenticates nobody (`unauthenticated`, HTTP 401) and the session is ended. A `session.revoked` event. Revoking one already revoked changes nothing.",
		args: () => type({ session_id: callerId }),
		argDocs: { session_id: "The minted session.", idempotency_key: "Revokes once on retry." },
		output: () => type({ session: sessionRecord(), changed: "boolean" }),
		mutates: true,
		idempotent: true,
		destructive: true,
	}),
	tool({
		name: "session.close",
		family: "sessions",
		visibility: "operator",
		title: "Close a session",
		description: "End a minted session: its capability revoked, its claims following their resume_policy.",
		details:
			"What happens when a launched agent exits. The session ends and its capability is revoked (the owner closes its socket); each live claim it took follows its `resume_policy`: `hold` keeps it until its lease ends, `release` releases it, `suspend` suspends it; a `draft` (what its workspace held that no proposal carries, already stored as a patch) is kept with it. A `session.closed` event, and one per claim released or suspended. Closing one already closed changes nothing.",
		args: () =>
			type({
				session_id: callerId,
				"reason?": nonBlank,
				"draft?": {
					sha256: /^[0-9a-f]{64}$/,
					files: type({ path: "string", change: "string" }).array().atMostLength(100_000),
				},
			}),
		argDocs: {
			session_id: "The minted session.",
			reason: "Why (e.g. the agent's exit status).",
			draft: "Its workspace's unproposed changes: the stored patch and its files.",
			idempotency_key: "Closes once on retry.",
		},
		output: () =>
			type({
				session: sessionRecord(),
				changed: "boolean",
				held: "string[]",
				released: "string[]",
				suspended: "string[]",
			}),
		mutates: true,
		idempotent: true,
	}),
	tool({
		name: "session.touch",
		family: "sessions",
		visibility: "internal",
		title: "A session was used",
		description: "Record that a session's client listed its tools (the owner's session socket calls it).",
		details:
			"Marks the session seen now; with `tools`, a `session.tools_listed` event saying how many tools its role's list held.",
		args: () => type({ session_id: callerId, "tools?": "0 <= number.integer <= 1000", "client?": nonBlank }),
		argDocs: {
			session_id: "The session.",
			tools: "Tools its tools/list held.",
			client: "The client's name and version.",
			idempotency_key: "Records once on retry.",
		},
		output: () => type({ session: sessionRecord() }),
		mutates: true,
	}),
	tool({
		name: "session.record_denial",
		family: "sessions",
		visibility: "internal",
		title: "Record a refused call",
		description: "Record that a call made with a capability was refused.",
		details:
			"A `call.denied` event: the tool, the reason, the agent and session; `count` is how many refusals of that session, tool and reason it stands for (call() records at most one a minute and folds the rest into the next).",
		args: () =>
			type({
				agent_id: callerId,
				session_id: callerId,
				tool: nonBlank,
				code: nonBlank,
				reason: nonBlank,
				count: "1 <= number.integer <= 9007199254740991",
			}),
		argDocs: {
			agent_id: "Who called.",
			session_id: "With which session.",
			tool: "What it called.",
			code: "permission_denied or unauthenticated.",
			reason: "Why it was refused.",
			count: "Refusals this stands for.",
			idempotency_key: "Records once on retry.",
		},
		output: () => type({ event: eventRecord() }),
		mutates: true,
	}),
	tool({
		name: "session.supervision",
		family: "sessions",
		visibility: "internal",
		title: "Record a launched session's attempt",
		description:
			"Record what happened to a launched session's agent process (the launcher and the owner call it).",
		details:
			"`started`: its agent starts (attempt `attempt`; `supervised` for the owner's headless sessions, with the operator's `prompt`; after the owner's restart a new `capability_sha256`), a `session.started` event. `exited`: its agent ended with `status` after `duration_ms` (`interrupted` when the owner died under it; `stopped` when a stop ended it: session.stop, run.stop, a stop signal to its launcher), a `session.exited` event; the session's `outcome` becomes `succeeded` (status 0), `stopped` or `failed`. `retrying`: it starts again after `delay_ms`, a `session.retrying` event. `gave_up`: it is not started again (`outcome` `gave_up`), a `session.gave_up` event saying `why`. `captured`: its CLI named its own conversation `external_session_id` (what a retry resumes); no event.",
		args: () =>
			type({
				session_id: callerId,
				event: "'started' | 'exited' | 'retrying' | 'gave_up' | 'captured'",
				"attempt?": "1 <= number.integer <= 1000",
				"supervised?": "boolean",
				"prompt?": type("string <= 32768").describe("at most 32768 characters"),
				"capability_sha256?": type(/^[0-9a-f]{64}$/).describe("a SHA-256 in lower-case hex"),
				"status?": "-1 <= number.integer <= 255",
				"duration_ms?": "0 <= number.integer <= 9007199254740991",
				"interrupted?": "boolean",
				"stopped?": "boolean",
				"delay_ms?": "0 <= number.integer <= 86400000",
				"why?": nonBlank,
				"external_session_id?": callerId,
			}),
		argDocs: {
			session_id: "The launched session.",
			event: "What happened.",
			attempt: "Which start of its agent (1 the first).",
			supervised: "The owner runs it and starts it again.",
			prompt: "The operator's words for its first message.",
			capability_sha256: "Its new capability's hash, after the owner's restart.",
			status: "The agent's exit status (-1: it never ran).",
			duration_ms: "How long the attempt ran.",
			interrupted: "The owner died under it.",
			stopped: "A stop ended it (session.stop, run.stop, a stop signal), not a failure of its own.",
			delay_ms: "How long until the next attempt.",
			why: "Why it gave up, or why it is retried.",
			external_session_id: "The CLI's own conversation id.",
			idempotency_key: "Records once on retry.",
		},
		output: () => type({ session: sessionRecord() }),
		mutates: true,
	}),
	tool({
		name: "session.egress_refused",
		family: "sessions",
		visibility: "internal",
		title: "Record a refused connection",
		description:
			"Record that a launched agent's sandbox refused a connection to a host its adapter does not name.",
		details:
			"A `session.egress_refused` event: the session, its agent, the host and port asked for (port 0 when the request named none), and why.",
		args: () =>
			type({
				session_id: callerId,
				host: type("string <= 300").describe("at most 300 characters"),
				port: "0 <= number.integer <= 65535",
				reason: nonBlank,
			}),
		argDocs: {
			session_id: "The session whose proxy refused it.",
			host: "The host asked for.",
			port: "The port asked for.",
			reason: "Why it was refused.",
			idempotency_key: "Records once on retry.",
		},
		output: () => type({ event: eventRecord() }),
		mutates: true,
	}),
] as const;
