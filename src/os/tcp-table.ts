// Which TCP connections to a local port the kernel holds open, from its own table (/proc/net/tcp and
// tcp6 on Linux). Bun.serve says nothing when a client closes an idle keep-alive connection, so the
// HTTP connection cap asks the kernel instead of guessing (src/transports/http-connections.ts).
import { readFileSync } from "node:fs";

const ESTABLISHED = "01";

/**
 * The remote ports of the established connections whose local port is `port`; undefined where the
 * kernel's table cannot be read (not Linux, /proc not mounted), so the caller falls back.
 */
export function establishedPeers(
	port: number,
	files = ["/proc/net/tcp", "/proc/net/tcp6"],
): Set<number> | undefined {
	const peers = new Set<number>();
	let read = false;
	for (const file of files) {
		let text: string;
		try {
			text = readFileSync(file, "latin1");
		} catch {
			continue;
		}
		read = true;
		for (const line of text.split("\n").slice(1)) {
			// "  sl  local_address rem_address   st …": addresses are HEX_IP:HEX_PORT.
			const [, local, remote, state] = line.trim().split(/\s+/);
			if (state !== ESTABLISHED || local === undefined || remote === undefined) continue;
			if (Number.parseInt(local.slice(local.lastIndexOf(":") + 1), 16) !== port) continue;
			peers.add(Number.parseInt(remote.slice(remote.lastIndexOf(":") + 1), 16));
		}
	}
	return read ? peers : undefined;
}
