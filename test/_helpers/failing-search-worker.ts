// A search worker that fails halfway (test/repo/search-parallel.test.ts): it takes two chunks the
// way the real one does (src/repo/search-worker.ts), raises the stop flag, and throws, so the chunks
// it took are lost and the calling thread must read them itself.

import { NEXT, STOP } from "../../src/repo/search-files.ts";
import type { WorkerTask } from "../../src/repo/search-worker.ts";

declare const self: Worker;

self.onmessage = (event: MessageEvent<WorkerTask>) => {
	const state = new Int32Array(event.data.shared);
	Atomics.add(state, NEXT, 2);
	Atomics.store(state, STOP, 1);
	throw new Error("a search worker failing on purpose");
};
