// Child process for socket tests: listens on the Unix socket at argv[2], answers every connection
// with "other-listener\n" and closes it once the client has half-closed (closing at once could lose
// the line to a reset on a busy machine), and prints "listening" once bound. It runs until killed, so
// a SIGKILL leaves a stale socket file behind.
const path = process.argv[2];
if (!path) {
	process.stderr.write("usage: unix-listener.ts SOCKET_PATH\n");
	process.exit(2);
}

Bun.listen({
	unix: path,
	socket: {
		open(s) {
			s.write("other-listener\n");
		},
		data() {},
		end(s) {
			s.end();
		},
	},
});
process.stdout.write("listening\n");
setInterval(() => {}, 60_000);

export {};
