// The ceiling of the "write" figure: what any server speaking the legacy socket's protocol (one
// request line per connection, one reply line, then close) reaches on this machine when it does the
// floor's database work and nothing else: no tools, no validation, no events, no limits. The owner
// can only come near it; its distance from the floor is the socket round trip itself.
// Usage: bun bench/write-ceiling.ts <socket path> <directory for its database>
import { serveBare } from "./bare-server.ts";
import { openFloor } from "./write-floor.ts";

const [socketPath, dir] = process.argv.slice(2);
const floor = openFloor(dir as string);

serveBare(
	socketPath as string,
	({ args }) => ({ ok: true, result: { task: { id: floor.row(String(args.title), String(args.body_md)) } } }),
	() => floor.close(),
);
