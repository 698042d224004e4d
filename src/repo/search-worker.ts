// The second thread of a large search (search-pool.ts). It takes chunks of the search's files from
// the counter it shares with the calling thread, reads and scans them through its own
// DirectoryReader (the same checks per directory and per file as the calling thread's, without a
// read scope: the caller applies that to what comes back, before any of it is shown), and stops
// when the stop flag is up or its chunks hold as many matches as the search could use.
import { DirectoryReader, RepoGuard } from "./guard.ts";
import { ReadBuffer } from "./read.ts";
import { type ScanSpec, scannerOf } from "./scan.ts";
import { type Chunk, STOP, searchChunks } from "./search-files.ts";

export interface WorkerTask {
	root: string;
	files: string[];
	spec: ScanSpec;
	/** Enough matches: a thread stops taking chunks once its own hold this many. */
	room: number;
	/** Int32s shared with the calling thread: the stop flag and the next chunk (search-files.ts). */
	shared: SharedArrayBuffer;
}

/** The chunks this thread took, each with one entry per file. */
export type WorkerResult = Chunk[];

declare const self: Worker;

self.onmessage = (event: MessageEvent<WorkerTask>) => {
	const task = event.data;
	const reader = new DirectoryReader(new RepoGuard(task.root));
	const state = new Int32Array(task.shared);
	try {
		const chunks = searchChunks(task.files, state, task.room, reader, new ReadBuffer(), scannerOf(task.spec));
		postMessage(chunks satisfies WorkerResult);
	} finally {
		reader.close();
		Atomics.store(state, STOP, 1);
	}
};
