// The chair.* family's front door: the Chair's batch steps (expire leases, assign open tasks,
// schedule the next turn, request reviews of pending proposals, report a step's error), one
// function each; the loop that calls them in order is src/chair/, above the dispatcher.
export { assignTasks } from "./assign.ts";
export { launchSessions, prepareLaunches } from "./autopilot.ts";
export { expire } from "./expire.ts";
export { reportError } from "./failures.ts";
export { prepareReviews, requestReviews } from "./reviews.ts";
export { scheduleTurn } from "./schedule.ts";
