// The second ceiling of the "write" figure: the product's own database work for one task.create,
// behind the same bare socket server as ./write-ceiling.ts. It uses the project database's pragmas
// and schema (opened by the store, migrations and all), and the store's own statements: the task
// row with its indexes and status counter, and its task.created event, in a savepoint of a commit
// of its own. Nothing of the owner runs around it: no validation, dispatch, group commit or limits.
// Its distance from the first ceiling is what the schema costs; the owner's distance from it is
// what the owner's code costs.
// Usage: bun bench/write-schema-ceiling.ts <socket path> <directory for its database>
import { join } from "node:path";
import { Conn, openDatabase } from "../src/store/db.ts";
import { eventQueries } from "../src/store/events.ts";
import { taskQueries } from "../src/store/tasks.ts";
import { mintId, nowIso } from "../src/vocabulary/ids.ts";
import { serveBare } from "./bare-server.ts";

const [socketPath, dir] = process.argv.slice(2);
const db = openDatabase(join(dir as string, "roundtable.db"));
const conn = new Conn(db);
const tasks = taskQueries(conn);
const events = eventQueries(conn);
const begin = db.prepare("BEGIN IMMEDIATE");
const savepoint = db.prepare("SAVEPOINT call");
const release = db.prepare("RELEASE call");
const commit = db.prepare("COMMIT");

async function create(title: string, body_md: string): Promise<object> {
	const now = nowIso();
	begin.run();
	savepoint.run();
	const task = await tasks.insert(
		{
			id: mintId("task"),
			run_id: null,
			title,
			body_md,
			status: "open",
			priority: 100,
			risk: "normal",
			assigned_agent_id: null,
			readable_paths: [],
		},
		now,
	);
	const { id, status, priority, risk, assigned_agent_id, readable_paths } = task;
	await events.append(
		{
			type: "task.created",
			actor_id: "operator",
			run_id: null,
			task_id: id,
			payload: { task_id: id, title, status, priority, risk, assigned_agent_id, readable_paths },
		},
		now,
	);
	release.run();
	commit.run();
	return { task };
}

serveBare(
	socketPath as string,
	({ args }) => create(String(args.title), String(args.body_md)).then((result) => ({ ok: true, result })),
	() => db.close(),
);
