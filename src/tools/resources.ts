// The resource.* family: resource.claim, .claim_status, .get, .release, .search, .renew, and the
// operator's revoke and expiry sweep: each the claims engine's (src/claims/) handler for its tool,
// which takes the tool's arguments as the registry declares them.
export { expire, release, revoke } from "../claims/lifecycle.ts";
export { getResource as get, searchResources as search } from "../claims/queries.ts";
export { prepareRenew, renew } from "../claims/renew.ts";
export { claimStatus, prepareStatus } from "../claims/status.ts";
export { claim, prepareClaim } from "../claims/take.ts";
