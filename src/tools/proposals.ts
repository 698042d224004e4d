// The proposals family: proposal.*, vote.*, decision.record, patch.reject and patch.validate, each
// a call into its engine (src/proposals/, and src/gates/ for patch.validate). A proposal's patch is
// stored by content and versioned; evidence only counts for the revision it saw.
import type { Env } from "../engine/env.ts";
import { validateProposal } from "../gates/check.ts";
import type { Args } from "../registry/index.ts";

export { recordDecision } from "../proposals/decisions.ts";
export {
	attachPatch,
	createProposal as create,
	rejectProposal as reject,
	withdrawProposal as withdraw,
} from "../proposals/lifecycle.ts";
export { preparePatch } from "../proposals/patch.ts";
export {
	getProposal as get,
	listProposals as list,
	proposalRevisions as revisions,
} from "../proposals/read.ts";
export { prepareReview, requestReview } from "../proposals/review.ts";
export { castVote, listVotes } from "../proposals/votes.ts";

export const validate = (a: Args<"patch.validate">, env: Env) => validateProposal(env, a.proposal_id);
