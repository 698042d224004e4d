// A second thread for large searches, so reading and scanning use two cores as ripgrep does. One
// worker per process, started on the first large search and ended when idle (it holds a heap of its
// own). It takes chunks of a search's files alongside the calling thread (search-files.ts); a worker
// that is busy, or that cannot start (a build without its entry point, a crash), leaves the whole
// search to the calling thread.
import type { WorkerResult, WorkerTask } from "./search-worker.ts";

const IDLE_MS = 10_000;

/**
 * Below `parallelFrom` files a second thread costs more than it saves. `worker` is its code: beside
 * this file, or, in the compiled binary (everything bundled under /$bunfs/root), where
 * scripts/build.ts embeds it as a second entry point. The counts are for tests.
 */
export const searchTuning = {
	parallelFrom: 4000,
	worker: import.meta.url.includes("/$bunfs/")
		? "/$bunfs/root/repo/search-worker.js"
		: new URL("./search-worker.ts", import.meta.url).href,
	lent: 0,
	returned: 0,
	failed: 0,
	/** Chunks the calling thread read again because a failed second thread had taken them. */
	reread: 0,
};

let worker: Worker | undefined;
/** The code `worker` runs. */
let running: string | undefined;
/** The worker code that failed to run, not tried again. */
let broken: string | undefined;
let busy = false;
let idle: ReturnType<typeof setTimeout> | undefined;
let pending: { resolve: (r: WorkerResult) => void; reject: (e: Error) => void } | undefined;

function start(): Worker | undefined {
	if (worker && running !== searchTuning.worker) {
		worker.terminate();
		worker = undefined;
	}
	if (worker || broken === searchTuning.worker) return worker;
	try {
		running = searchTuning.worker;
		worker = new Worker(running);
	} catch {
		broken = searchTuning.worker;
		return undefined;
	}
	worker.unref();
	worker.onmessage = (event: MessageEvent<WorkerResult>) => {
		const p = pending;
		pending = undefined;
		searchTuning.returned++;
		p?.resolve(event.data);
	};
	worker.onerror = (event) => {
		broken = searchTuning.worker;
		searchTuning.failed++;
		worker?.terminate();
		worker = undefined;
		const p = pending;
		pending = undefined;
		p?.reject(new Error(`the search worker failed: ${event.message}`));
	};
	return worker;
}

/**
 * Sets the second thread to take chunks of a search alongside the caller; the chunks it took, or
 * undefined when it is busy or unavailable. Rejects when the worker failed.
 */
export function lend(task: WorkerTask): Promise<WorkerResult> | undefined {
	if (busy) return undefined;
	const w = start();
	if (!w) return undefined;
	busy = true;
	searchTuning.lent++;
	clearTimeout(idle);
	const results = new Promise<WorkerResult>((resolve, reject) => {
		pending = { resolve, reject };
		w.postMessage(task);
	}).finally(() => {
		busy = false;
		idle = setTimeout(() => {
			if (busy) return;
			worker?.terminate();
			worker = undefined;
		}, IDLE_MS);
		idle.unref();
	});
	// A search that stopped early no longer waits for these: a failure then is nobody's to report.
	results.catch(() => {});
	return results;
}
