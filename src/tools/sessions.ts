// session.register, .heartbeat, .end, .mint, .revoke, .close, .touch, .record_denial, .egress_refused and
// agent.enable, .disable. The engine is src/sessions/: the operator's record of external sessions
// (registration.ts), minted sessions (minted.ts), the agents' switch (agents.ts), denials.
import type { Env } from "../engine/env.ts";
import type { Args } from "../registry/index.ts";
import { setAgentEnabled } from "../sessions/agents.ts";
import { appendDenial } from "../sessions/denials.ts";
import {
	closeSession,
	mintSession,
	recordEgressRefused,
	revokeSession,
	touchSession,
} from "../sessions/minted.ts";
import { endSession, heartbeatSession, registerSession } from "../sessions/registration.ts";
import type { Tx } from "../store/index.ts";

export const register = (tx: Tx, a: Args<"session.register">, env: Env) => registerSession(tx, env, a);
export const heartbeat = (tx: Tx, a: Args<"session.heartbeat">, env: Env) => heartbeatSession(tx, env, a);
export const end = (tx: Tx, a: Args<"session.end">, env: Env) => endSession(tx, env, a);

export const enable = (tx: Tx, a: Args<"agent.enable">, env: Env) =>
	setAgentEnabled(tx, env, a.agent_id, true);
export const disable = (tx: Tx, a: Args<"agent.disable">, env: Env) =>
	setAgentEnabled(tx, env, a.agent_id, false);

export const mint = (tx: Tx, a: Args<"session.mint">, env: Env) => mintSession(tx, env, a);
export const revoke = (tx: Tx, a: Args<"session.revoke">, env: Env) => revokeSession(tx, env, a);
export const recordDenial = (tx: Tx, a: Args<"session.record_denial">, env: Env) => appendDenial(tx, env, a);
export const close = (tx: Tx, a: Args<"session.close">, env: Env) => closeSession(tx, env, a);
export const touch = (tx: Tx, a: Args<"session.touch">, env: Env) => touchSession(tx, env, a);
export const egressRefused = (tx: Tx, a: Args<"session.egress_refused">, env: Env) =>
	recordEgressRefused(tx, env, a);
