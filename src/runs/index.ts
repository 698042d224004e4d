// The run.* family's front door: the operator's run.open, and the Chair's run.converge and
// run.tick_failed. Its other steps are the chair.* family (chair-steps.ts). Each commits once however
// many records it touches; the tick in src/chair/ calls them in order, through call().
export { converge } from "./converge.ts";
export { tickFailed } from "./failures.ts";
export { open } from "./open.ts";
export { stop } from "./stop.ts";
