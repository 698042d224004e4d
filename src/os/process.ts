// Whether a process still lives, for the records that name one (an owner, a test run's runner, the
// holder of an idempotency key).

/** True while `pid` exists (a process of another user counts: EPERM). */
export function isAlive(pid: number): boolean {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return (err as NodeJS.ErrnoException).code === "EPERM";
	}
}
