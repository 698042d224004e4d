// The human.* family's front door: one function per tool. A human decision is the operator's alone;
// an approval satisfies the human gate only. human.request_approval with a status is the seed's way
// to decide an existing request.
export { decide } from "./decide.ts";
export { requestApproval } from "./request.ts";
export { approvalStatus } from "./status.ts";
