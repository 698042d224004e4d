// Starting an owner for a command that needs one (`mcp stdio --autostart`, `sessions launch`):
// `roundtable start` detached, its output in .roundtable/logs/owner.log, and a wait until it is up.

import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { LAYOUT } from "../layout.ts";
import { findOwner, type OwnerInfo } from "./presence.ts";
import { launchCommand } from "./self.ts";

/**
 * Starts an owner for `root` and waits (15 s at most) until `ready` says the owner that published
 * itself is up; resolves with it.
 */
export async function startOwnerInBackground(
	root: string,
	ready: (owner: OwnerInfo) => boolean | Promise<boolean> = () => true,
): Promise<OwnerInfo> {
	mkdirSync(join(root, LAYOUT.logs), { recursive: true, mode: 0o700 });
	const logFd = openSync(join(root, LAYOUT.ownerLog), "a", 0o600);
	const child = Bun.spawn([...launchCommand(), "start", "--root", root], {
		detached: true,
		stdin: "ignore",
		stdout: logFd,
		stderr: logFd,
	});
	child.unref();
	closeSync(logFd);
	let exited = false;
	void child.exited.then(() => {
		exited = true;
	});
	const deadline = Date.now() + 15_000;
	while (Date.now() < deadline && !exited) {
		const owner = findOwner(root);
		if (owner && (await ready(owner))) return owner;
		await Bun.sleep(50);
	}
	throw new Error(`the owner started in the background did not come up; see ${join(root, LAYOUT.ownerLog)}`);
}

/** The project's live owner, or one started in the background now (said through `log`). */
export async function ownerOf(root: string, log: (line: string) => void): Promise<OwnerInfo> {
	const live = findOwner(root);
	if (live) return live;
	log("roundtable: no owner runs here; starting one in the background");
	return startOwnerInBackground(root);
}
