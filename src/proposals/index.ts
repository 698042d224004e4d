// The proposal.* family's front door: one function per tool, named after it (and the prepare step of
// those that read the repository first). The engine is this folder: the lifecycle (lifecycle.ts),
// patches stored by content (patch.ts), reads (read.ts), review requests (review.ts). Its sibling
// families have their own doors here: vote.* (votes.ts) and decision.* (decisions.ts); patch.* is
// src/apply/index.ts.
export { attachPatch, create, withdraw } from "./lifecycle.ts";
export { preparePatch } from "./patch.ts";
export { get, list, revisions } from "./read.ts";
export { prepareReview, requestReview } from "./review.ts";
