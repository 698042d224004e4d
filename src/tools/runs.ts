// run.open (the operator's), and the Chair's batch steps: chair.expire, .assign_tasks,
// .schedule_turn, .request_reviews, .report_error, run.converge and run.tick_failed. Each commits
// once however many records it touches; the tick in src/chair/ calls them in order. The engine:
// src/runs/.
import type { Env } from "../engine/env.ts";
import type { Args } from "../registry/index.ts";
import { assignOpenTasks } from "../runs/assign.ts";
import { convergeRun } from "../runs/converge.ts";
import { expireLeases } from "../runs/expire.ts";
import { recordTickFailure, reportStepError } from "../runs/failures.ts";
import { openRun } from "../runs/open.ts";
import { preparePendingReviews, requestPendingReviews } from "../runs/reviews.ts";
import { scheduleNextTurn } from "../runs/schedule.ts";
import type { Tx } from "../store/index.ts";

export const open = (tx: Tx, a: Args<"run.open">, env: Env) => openRun(tx, env, a);

export const expire = (tx: Tx, a: Args<"chair.expire">, env: Env) => expireLeases(tx, env, a.run_id);

export const assignTasks = (tx: Tx, a: Args<"chair.assign_tasks">, env: Env) =>
	assignOpenTasks(tx, env, a.run_id);

export const scheduleTurn = (tx: Tx, a: Args<"chair.schedule_turn">, env: Env) =>
	scheduleNextTurn(tx, env, a.run_id);

export const prepareReviews = preparePendingReviews;

export const requestReviews = requestPendingReviews;

export const converge = (tx: Tx, a: Args<"run.converge">, env: Env) => convergeRun(tx, env, a.run_id);

export const reportError = (tx: Tx, a: Args<"chair.report_error">, env: Env) => reportStepError(tx, env, a);

export const tickFailed = (tx: Tx, a: Args<"run.tick_failed">, env: Env) => recordTickFailure(tx, env, a);
