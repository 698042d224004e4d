// The resource.* family's front door: one function per tool, named after it (and, for the tools
// that read the repository before their transaction, its prepare step). The claims engine is this
// folder: taking a claim (take.ts), its status and reconcile (status.ts), renewal (renew.ts), the
// rest of its life (lifecycle.ts), and the resource reads (queries.ts).
export { expire, release, revoke } from "./lifecycle.ts";
export { get, search } from "./queries.ts";
export { prepareRenew, renew } from "./renew.ts";
export { claimStatus, prepareStatus } from "./status.ts";
export { claim, prepareClaim } from "./take.ts";
