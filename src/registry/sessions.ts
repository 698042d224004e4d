// The sessions family's tools (see FAMILIES in ./types.ts): the operator's record of the external
// agent sessions (Codex, Claude Code, …) and the operator's switch for each agent. Operator only:
// the CLI's `sessions` and `agents` commands call them.
import { type } from "arktype";
import { callerId, nonBlank } from "../domain/scalars.ts";
import { sessionRecord, storedAgentRecord } from "./records.ts";
import { tool } from "./types.ts";

const liveStatus = "'active' | 'idle'";
const switchArgs = type({ agent_id: callerId });
const switchOutput = type({ agent: storedAgentRecord, changed: "boolean" });

export const sessionTools = [
	tool({
		name: "session.register",
		family: "sessions",
		visibility: "operator",
		title: "Register an agent session",
		description: "Record an external agent session working on a run.",
		details:
			"Record (or re-record) an external agent session: its agent, run, adapter and working directory. The resume command comes from the adapter's `resume_pattern` and `external_session_id` unless given. Registering an id again updates it (same agent only) and reopens it. A `session.registered` event.",
		args: type({
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
		output: type({ session: sessionRecord }),
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
		args: type({ session_id: callerId, "status?": liveStatus, "external_session_id?": callerId }),
		argDocs: {
			session_id: "The live session.",
			status: "active or idle.",
			external_session_id: "The client's new session id.",
			idempotency_key: "Beats once on retry.",
			expected_revision: "Session revision you read.",
		},
		output: type({ session: sessionRecord }),
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
		args: type({ session_id: callerId }),
		argDocs: {
			session_id: "The live session.",
			idempotency_key: "Ends once on retry.",
			expected_revision: "Session revision you read.",
		},
		output: type({ session: sessionRecord }),
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
		args: switchArgs,
		argDocs: { agent_id: "The agent.", idempotency_key: "Enables once on retry." },
		output: switchOutput,
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
		args: switchArgs,
		argDocs: { agent_id: "The agent.", idempotency_key: "Disables once on retry." },
		output: switchOutput,
		mutates: true,
		idempotent: true,
	}),
] as const;
