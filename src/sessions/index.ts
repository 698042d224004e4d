// The session.* family's front door: one function per tool. The operator's record of external
// sessions (registration.ts), minted sessions with capabilities (minted.ts), and the call.denied
// events the dispatcher asks for (denials.ts), headless sessions the owner runs (headless.ts).
// agent.enable and agent.disable are agents.ts's.
export { recordDenial } from "./denials.ts";
export { start, stop } from "./headless.ts";
export { close, egressRefused, mint, revoke, touch } from "./minted.ts";
export { end, heartbeat, register } from "./registration.ts";
export { supervision } from "./supervision.ts";
export { list, transcript } from "./transcripts.ts";
