// The workspace.* family's front door: what a launched agent changed in its workspace (diff), that
// change proposed (propose, after preparePropose reads the workspace), and the workspace brought up
// to the project (sync, after prepareSync merges). Made at launch by create.ts.
export { diff, preparePropose, prepareSync, propose, sync } from "./propose.ts";
