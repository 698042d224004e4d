import type { AgentFields, AgentRecord } from "../vocabulary/records.ts";
import type { Conn } from "./db.ts";

interface AgentRow extends Omit<AgentRecord, "enabled"> {
	enabled: number;
	disabled_by: "operator" | "config" | null;
}

export type StoredAgent = AgentRecord & { disabled_by: "operator" | "config" | null };

const COLUMNS =
	"id, role, name, adapter, command, model, status, enabled, disabled_by, revision, created_at, updated_at";

const toStored = (r: AgentRow): StoredAgent => ({ ...r, enabled: r.enabled === 1 });

/** The public record: who disabled an agent is bookkeeping for config sync. */
export const agentRecordOf = ({ disabled_by: _, ...agent }: StoredAgent): AgentRecord => agent;

export type { AgentFields };

export const agentQueries = (c: Conn) => ({
	async get(id: string): Promise<StoredAgent | undefined> {
		const row = c.get<AgentRow>(`SELECT ${COLUMNS} FROM agents WHERE id = ?`, id);
		return row && toStored(row);
	},

	async list(): Promise<StoredAgent[]> {
		return c.all<AgentRow>(`SELECT ${COLUMNS} FROM agents ORDER BY created_at, id`).map(toStored);
	},

	async ids(): Promise<string[]> {
		return c.all<{ id: string }>("SELECT id FROM agents ORDER BY id").map((r) => r.id);
	},

	async countEnabled(): Promise<number> {
		return c.get<{ n: number }>("SELECT count(*) AS n FROM agents WHERE enabled = 1")?.n ?? 0;
	},

	async insert(a: AgentFields, now: string): Promise<void> {
		c.run(
			`INSERT INTO agents (id, role, name, adapter, command, model, enabled, created_at, updated_at)
			 VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)`,
			a.id,
			a.role,
			a.name,
			a.adapter,
			a.command,
			a.model,
			now,
			now,
		);
	},

	/** Switches an agent on or off (the operator's `agents enable|disable`), leaving its fields. */
	async setEnabled(
		id: string,
		enabled: boolean,
		disabledBy: "operator" | "config" | null,
		now: string,
	): Promise<void> {
		c.run(
			`UPDATE agents SET enabled = ?, disabled_by = ?, revision = revision + 1, updated_at = ? WHERE id = ?`,
			enabled ? 1 : 0,
			disabledBy,
			now,
			id,
		);
	},

	async update(
		a: AgentFields & { enabled: boolean; disabled_by: "operator" | "config" | null },
		now: string,
	): Promise<void> {
		c.run(
			`UPDATE agents SET role = ?, name = ?, adapter = ?, command = ?, model = ?, enabled = ?, disabled_by = ?,
			 revision = revision + 1, updated_at = ? WHERE id = ?`,
			a.role,
			a.name,
			a.adapter,
			a.command,
			a.model,
			a.enabled ? 1 : 0,
			a.disabled_by,
			now,
			a.id,
		);
	},
});
