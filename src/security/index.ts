// security.review's front door: the scan before the transaction (prepareReview), the record in it
// (review), bound to the proposal's current patch revision.
export { review } from "./record.ts";
export { prepareReview } from "./scan.ts";
