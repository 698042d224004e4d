// Child process for socket tests: connects to the Unix socket at argv[2], sends the request line
// argv[3] (a newline is added), then blocks its event loop for argv[4] ms so it reads nothing, and
// finally reads until the server closes. Prints one JSON line: {"bytes":N,"complete":bool} where
// complete means the bytes form one newline-terminated JSON reply.
const [path, line, stallArg] = process.argv.slice(2);
if (!path || line === undefined || stallArg === undefined) {
	process.stderr.write("usage: slow-reader.ts SOCKET_PATH REQUEST_LINE STALL_MS\n");
	process.exit(2);
}
const stallMs = Number(stallArg);
const chunks: Buffer[] = [];

function report() {
	const data = Buffer.concat(chunks);
	let complete = false;
	if (data.length > 0 && data[data.length - 1] === 0x0a) {
		try {
			JSON.parse(data.toString("utf8"));
			complete = true;
		} catch {
			complete = false;
		}
	}
	process.stdout.write(`${JSON.stringify({ bytes: data.length, complete })}\n`);
	process.exit(0);
}

await Bun.connect({
	unix: path,
	allowHalfOpen: true,
	socket: {
		open(s) {
			s.write(`${line}\n`);
			// Block the event loop: nothing is read, so the kernel buffers fill and the server's
			// writes stall.
			Bun.sleepSync(stallMs);
		},
		data(_s, chunk) {
			chunks.push(Buffer.from(chunk));
		},
		end(s) {
			s.end();
		},
		close: report,
		error: report,
	},
});

export {};
