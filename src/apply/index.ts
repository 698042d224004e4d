// The patch.* family's front door: one function per tool, named after it. Applying, rolling back and
// recovering are this folder's: each a transaction over the repository that cannot be left half
// done, wholly before or wholly after whatever crash (the journaled transaction: transact.ts).
// Validating is the gates' (src/gates/check.ts), rejecting the proposal lifecycle's.
export { validate } from "../gates/check.ts";
export { reject } from "../proposals/lifecycle.ts";
export { apply } from "./apply.ts";
export { recover } from "./recover.ts";
export { rollback } from "./rollback.ts";
