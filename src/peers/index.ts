// The peer.* family's front door: addressed questions with retained answers, one function per tool.
// peer.wait manages its own short transactions; peer.questions is the operator's table-wide read.
export { list } from "./list.ts";
export { answer, ask, cancel, replyLate, request } from "./questions.ts";
export { questions } from "./table.ts";
export { wait } from "./wait.ts";
