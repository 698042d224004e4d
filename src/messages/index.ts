// The message.* family's front door: retained messages to an agent or a channel, one function per
// tool. Its siblings have their own doors here: channel.* (channels.ts) and promotion.list
// (promote.ts, beside message.promote).
export { inbox } from "./inbox.ts";
export { post } from "./post.ts";
export { promote } from "./promote.ts";
export { markRead } from "./read.ts";
export { list } from "./recent.ts";
