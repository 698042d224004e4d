// The test.* family's front door: one function per tool. A failing test is a result, not a tool
// error. The engine is this folder: a run (run.ts), its log (logs.ts), the list, reported evidence,
// suggestions and the start-up sweep of runs a crash interrupted.
export { evidenceSubmit } from "./evidence.ts";
export { list } from "./list.ts";
export { getResult } from "./logs.ts";
export { run } from "./run.ts";
export { suggest } from "./suggest.ts";
export { sweepInterrupted } from "./sweep.ts";
