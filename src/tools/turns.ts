// agent.turn_request, agent.turn_start, agent.turn_complete: the seed's FIFO turn protocol, with its
// checks in its order. The events are the record; the `turns` table follows them in the same
// transaction so the queue is cheap to read. Better than the seed: a scheduled or started turn holds
// a lease (turns.lease_seconds) and expires when it runs out, so one stuck agent never blocks a run.
// turn.queue is the operator's read of the queue. The engine: src/turns/ (queue.ts, lifecycle.ts,
// lease.ts).
import type { Env } from "../engine/env.ts";
import type { Args } from "../registry/index.ts";
import type { Tx } from "../store/index.ts";
import { completeTurn, startTurn } from "../turns/lifecycle.ts";
import { requestTurn, turnQueue } from "../turns/queue.ts";

export const request = (tx: Tx, a: Args<"agent.turn_request">, env: Env) => requestTurn(tx, env, a);

export const start = (tx: Tx, a: Args<"agent.turn_start">, env: Env) => startTurn(tx, env, a);

export const complete = (tx: Tx, a: Args<"agent.turn_complete">, env: Env) => completeTurn(tx, env, a);

export const queue = (tx: Tx, a: Args<"turn.queue">, _env: Env) => turnQueue(tx, a);
