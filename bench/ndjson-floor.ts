// The floor of the "socket read" figure: a bare Bun.listen server speaking the legacy socket's
// protocol (one request line per connection, one reply line, then close) that does the trivial
// work any such server must: it parses the request and serializes a fixed reply, the row the
// owner's task.get returned (given as JSON in argv). No tools, no database, no limits.
import { serveBare } from "./bare-server.ts";

const [socketPath, rowJson] = process.argv.slice(2);
const row = JSON.parse(rowJson as string) as object;

serveBare(socketPath as string, () => ({ ok: true, result: row }));
