// The config family's tools (see FAMILIES in ./types.ts): what the owner's own upkeep records when
// the config changes. Internal: init, start and the reload watcher call them as the system.

import { nonBlank } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";
import { eventRecord } from "../vocabulary/records.ts";
import { tool } from "./types.ts";

const ids = type("string[]");

export const configTools = [
	tool({
		name: "config.sync_agents",
		family: "config",
		visibility: "internal",
		title: "Sync the configured agents",
		description: "Make the agents table match the config in effect.",
		details:
			"Adds the agents the config describes (`agent.registered`), updates changed ones (`agent.updated`), re-enables those the config had removed and now has again (`agent.enabled`), and disables, never deletes, those it no longer has (`agent.disabled`). An agent the operator disabled stays disabled.",
		args: () => type({}),
		argDocs: { idempotency_key: "Syncs once on retry." },
		output: () => type({ added: ids, updated: ids, enabled: ids, disabled: ids }),
		mutates: true,
		idempotent: true,
	}),
	tool({
		name: "config.record_reload",
		family: "config",
		visibility: "internal",
		title: "Record a reload",
		description: "Record that the owner applied a new revision of the config or the policy.",
		details:
			"A `config.reloaded` event: the file, its content hash before and after, the keys that changed and, for the config, those that take effect only at the next start.",
		args: () =>
			type({
				file: nonBlank,
				sha256: "string | null",
				previous_sha256: "string | null",
				changed_keys: "string[]",
				"needs_restart?": "string[]",
			}),
		argDocs: {
			file: "The file reloaded.",
			sha256: "Its content hash now (null: gone).",
			previous_sha256: "The hash that ran before.",
			changed_keys: "Dotted keys that changed.",
			needs_restart: "Changed keys that wait for a restart.",
			idempotency_key: "Records once on retry.",
		},
		output: () => type({ event: eventRecord() }),
		mutates: true,
	}),
] as const;
