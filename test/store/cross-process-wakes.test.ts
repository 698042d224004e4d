// A commit by another process wakes the owner's waiters through the datagram the committing process
// sends (src/os/wake.ts), never missed: a real owner, its waiters on its socket (table.watch), and a
// second process that commits 1,000 times at random moments, each one's event seen by the waiter.
// The owner's poll backs the datagrams up only once a second, so a missed wake would show as a wait
// of up to a second; none may take half that.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Subprocess } from "bun";
import { findOwner } from "../../src/owner/presence.ts";
import { callSocket } from "../../src/transports/socket-client.ts";
import { REPO, tempDir } from "../_helpers/helpers.ts";
import { type Owned, ownedProject } from "../_helpers/launch-helpers.ts";

const COMMITTER = join(REPO, "test/fixtures-scripts/committer.ts");
let owned: Owned;
let committer: Subprocess<"pipe", "pipe", "inherit">;
let lines: AsyncIterator<string>;

async function* splitLines(stream: ReadableStream<Uint8Array>) {
	const decoder = new TextDecoder();
	let rest = "";
	for await (const chunk of stream) {
		rest += decoder.decode(chunk, { stream: true });
		for (let cut = rest.indexOf("\n"); cut >= 0; cut = rest.indexOf("\n")) {
			yield rest.slice(0, cut);
			rest = rest.slice(cut + 1);
		}
	}
}

beforeAll(async () => {
	owned = await ownedProject(tempDir("rt-wakes-"), { "a.txt": "a\n" });
	committer = Bun.spawn([process.execPath, COMMITTER, owned.root], {
		stdin: "pipe",
		stdout: "pipe",
		stderr: "inherit",
	});
	lines = splitLines(committer.stdout)[Symbol.asyncIterator]();
	expect((await lines.next()).value).toBe("ready");
}, 30_000);

afterAll(async () => {
	committer?.stdin.end();
	await committer?.exited;
	owned?.owner.kill("SIGTERM");
	await owned?.owner.exited;
});

test("1,000 commits from another process at random moments: each wakes the owner's waiter, none waits for the poll", async () => {
	const socket = findOwner(owned.root)?.socket_path as string;
	const state = await callSocket(socket, "table.get_state", {});
	let after = (state.result as { last_event_id: number }).last_event_id;
	const lags: number[] = [];
	for (let i = 0; i < 1000; i++) {
		const watched = callSocket(socket, "table.watch", { after_event_id: after, wait_ms: 10_000 }).then(
			(reply) => ({ reply, at: performance.timeOrigin + performance.now() }),
		);
		// The commit lands at a random moment: before the waiter is asleep, or while it sleeps.
		await Bun.sleep(Math.random() * 4);
		committer.stdin.write("commit\n");
		await committer.stdin.flush();
		const committed = Number((await lines.next()).value);
		const { reply, at } = await watched;
		const events = (reply.result as { events: { id: number; type: string }[] }).events;
		expect({ i, types: events.map((e) => e.type) }).toEqual({ i, types: ["memory.recorded"] });
		after = events.at(-1)?.id as number;
		lags.push(at - committed);
	}
	lags.sort((x, y) => x - y);
	const at = (q: number) => lags[Math.floor((lags.length - 1) * q)]?.toFixed(2);
	console.log(
		`commit in another process → the owner's waiter returns: p50 ${at(0.5)} ms, p95 ${at(0.95)} ms, max ${at(1)} ms`,
	);
	expect(lags.filter((lag) => lag > 500)).toEqual([]);
}, 120_000);
