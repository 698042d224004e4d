// A commit made by another process reaches the owner as a datagram on loopback: the committing
// process says so, a one-byte UDP datagram to the port owner.json names, and the owner looks at the
// database (SQLite's data_version) at once instead of on its next poll. A datagram only makes the
// owner look, so one sent by anyone else costs a look and wakes nobody; one lost (a full buffer) is
// caught by the owner's slow poll. (A watch on the WAL file was tried first: inotify missed about one
// commit in five from another process, so it could not be relied on.)

export interface WakeListener {
	port: number;
	close(): void;
}

/** Listens on 127.0.0.1 (a port the system picks) and calls `onWake` for each datagram. */
export async function listenForWakes(onWake: () => void): Promise<WakeListener> {
	const socket = await Bun.udpSocket({
		hostname: "127.0.0.1",
		port: 0,
		socket: {
			data() {
				onWake();
			},
		},
	});
	return { port: socket.port, close: () => socket.close() };
}

const WAKE = new Uint8Array([1]);

/**
 * Sends wakes to the port `portNow` names (undefined: nobody listens). Its socket opens on the first
 * send; a send that fails is dropped (the listener's poll is the net).
 */
export class WakeSender {
	private socket: Promise<Bun.udp.Socket<"buffer">> | undefined;

	constructor(private readonly portNow: () => number | undefined) {}

	send(): void {
		const port = this.portNow();
		if (port === undefined) return;
		// Never the reason this process stays up; an owner gone (ICMP unreachable) is no error.
		this.socket ??= Bun.udpSocket({ hostname: "127.0.0.1", port: 0, socket: { error() {} } }).then((s) => {
			s.unref();
			return s;
		});
		void this.socket
			.then((s) => {
				try {
					s.send(WAKE, port, "127.0.0.1");
				} catch {
					// refused: nobody listens there now
				}
			})
			.catch(() => {});
	}

	close(): void {
		void this.socket?.then((s) => s.close()).catch(() => {});
		this.socket = undefined;
	}
}
