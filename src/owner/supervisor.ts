// The owner's headless sessions (session.start, session.stop): each a launch run inside the owner,
// stopped by its own signal, never by the owner's. The owner stops them all when it stops.
import { launch } from "../launch/launch.ts";
import type { HeadlessSessions, Runtime } from "../runtime.ts";

interface Running {
	abort: AbortController;
	/** Settles once the session is closed. */
	closed: Promise<void>;
}

export function headlessSessions(
	rt: Runtime,
	log: (line: string) => void,
): HeadlessSessions & { stopAll(): Promise<void> } {
	const running = new Map<string, Running>();
	return {
		start(o) {
			const abort = new AbortController();
			return new Promise<string>((resolve, reject) => {
				let id: string | undefined;
				const closed = launch(rt, {
					agent: o.agent,
					binding: o.binding,
					...(o.adapter !== undefined && { adapter: o.adapter }),
					...(o.prompt !== undefined && { prompt: o.prompt }),
					log,
					supervised: {
						signal: abort.signal,
						onSession: (sessionId) => {
							id = sessionId;
							running.set(sessionId, { abort, closed });
							resolve(sessionId);
						},
					},
				})
					.then((code) => log(`roundtable: headless session ${id} ended with status ${code}`))
					.catch((err: unknown) => {
						// Before its session exists the caller hears why (a tool's error keeps its code).
						if (id === undefined) reject(err);
						else log(`roundtable: headless session ${id} failed: ${(err as Error).message}`);
					})
					.finally(() => {
						if (id !== undefined) running.delete(id);
					});
			});
		},
		stop(id) {
			const r = running.get(id);
			if (!r) return false;
			r.abort.abort();
			return true;
		},
		async stopAll() {
			const all = [...running.values()];
			for (const r of all) r.abort.abort();
			await Promise.all(all.map((r) => r.closed));
		},
	};
}
