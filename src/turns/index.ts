// The turn tools' front door: agent.turn_request, agent.turn_start, agent.turn_complete (the seed's
// FIFO protocol, with its checks in its order) and the operator's turn.queue, one function each. The
// events are the record; the `turns` table follows them in the same transaction so the queue is
// cheap to read. Better than the seed: a scheduled or started turn holds a lease
// (turns.lease_seconds) and expires when it runs out, so one stuck agent never blocks a run.
export { complete, start } from "./lifecycle.ts";
export { queue, request } from "./queue.ts";
