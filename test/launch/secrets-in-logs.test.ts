// The attacker's side of a transcript: an agent run without a sandbox (so it can read the operator's
// token from .roundtable/) prints its capability and that token, whole and split over writes, and
// fails so it runs twice. Neither reaches its transcript, the owner's log, or an event.
import { afterAll, expect, test } from "bun:test";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runCli, tempDir } from "../_helpers/helpers.ts";
import { type Owned, ownedProject } from "../_helpers/launch-helpers.ts";
import { brief, closed, startSession } from "../_helpers/session-life.ts";

let owned: Owned | undefined;
afterAll(async () => {
	owned?.owner.kill("SIGTERM");
	await owned?.owner.exited;
});

test("a session's capability and the operator's token reach no transcript, log or event", async () => {
	const scripts = tempDir("rt-leaky-cli-");
	const seen = join(scripts, "seen");
	const file = join(scripts, "leaky.sh");
	writeFileSync(
		file,
		[
			`echo "$ROUNDTABLE_CAPABILITY" >> ${seen}`,
			'token=$(cat "$ROUNDTABLE_ROOT/.roundtable/operator.token")',
			'echo "capability: $ROUNDTABLE_CAPABILITY token: $token"',
			'echo "to stderr: $ROUNDTABLE_CAPABILITY" >&2',
			// Split over writes: the first half, a pause, the rest.
			'printf "%s" "$(echo "$token" | cut -c1-10)"; sleep 0.2; echo "$token" | cut -c11-',
			"exit 1",
			"",
		].join("\n"),
	);
	owned = await ownedProject(tempDir("rt-leaky-"), { "a.txt": "a\n" }, (doc) => {
		doc.setIn(["sessions", "sandbox"], "off");
		doc.setIn(["sessions", "retry_backoff_ms"], 100);
		doc.setIn(["adapters", "leaky"], { command: `/bin/sh ${file}`, headless: `/bin/sh ${file}` });
	});
	const root = owned.root;
	const id = await startSession(root, "--agent", "reviewer-1", "--adapter", "leaky");
	expect(brief(await closed(root, id))).toEqual([
		"started 1",
		"exited 1 1",
		"retrying 2",
		"started 2",
		"exited 2 1",
		"gave_up",
		"closed",
	]);
	const capability = readFileSync(seen, "utf8").trim().split("\n")[0] as string;
	const token = readFileSync(join(root, ".roundtable/operator.token"), "utf8").trim();
	expect(capability.length).toBeGreaterThan(20);
	expect(token.length).toBeGreaterThan(20);

	const transcript = readFileSync(join(root, ".roundtable/transcripts", `${id}.log`), "utf8");
	expect(transcript).toContain("capability: [redacted] token: [redacted]");
	expect(transcript).toContain("to stderr: [redacted]");
	const events = (await runCli(["watch", "--root", root, "--limit", "1000", "--json"])).stdout;
	owned.owner.kill("SIGTERM");
	await owned.owner.exited;
	const everything = [
		...readdirSync(join(root, ".roundtable/transcripts")).map((f) =>
			readFileSync(join(root, ".roundtable/transcripts", f), "utf8"),
		),
		...readdirSync(join(root, ".roundtable/logs")).map((f) =>
			readFileSync(join(root, ".roundtable/logs", f), "utf8"),
		),
		await owned.stderr,
		events,
	].join("\n");
	expect(everything).toContain(id);
	for (const secret of [capability, token, capability.slice(0, 24), token.slice(10)])
		expect(everything).not.toContain(secret);
	owned = undefined;
}, 60_000);
