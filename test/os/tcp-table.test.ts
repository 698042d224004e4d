// The kernel's table of TCP connections, read for the HTTP connection cap: a connection a client
// opens is there while it is open (IPv4 and IPv6 alike), and gone once the client closes it, with
// no word to the server's program; an unreadable table is "cannot tell", never "none".
import { expect, test } from "bun:test";
import { connect, createServer, type Socket } from "node:net";
import { establishedPeers } from "../../src/os/tcp-table.ts";
import { until } from "../_helpers/helpers.ts";

async function listening(host: string): Promise<{ port: number; close: () => void }> {
	const held: Socket[] = [];
	const server = createServer((s) => held.push(s));
	await new Promise<void>((resolve) => server.listen(0, host, resolve));
	return {
		port: (server.address() as { port: number }).port,
		close: () => {
			for (const s of held) s.destroy();
			server.close();
		},
	};
}

const opened = (port: number, host: string) =>
	new Promise<Socket>((resolve, reject) => {
		const s = connect(port, host, () => resolve(s));
		s.once("error", reject);
	});

for (const host of ["127.0.0.1", "::1"]) {
	test(`a client's connection to ${host} is in the table while open, and gone once it closes`, async () => {
		const server = await listening(host);
		try {
			const client = await opened(server.port, host);
			const port = client.localPort as number;
			await until(
				() => establishedPeers(server.port)?.has(port) === true,
				5000,
				"the connection in the table",
			);
			expect(establishedPeers(server.port + 1)?.has(port) ?? false).toBe(false);
			client.destroy();
			await until(() => establishedPeers(server.port)?.has(port) === false, 5000, "it to leave the table");
		} finally {
			server.close();
		}
	});
}

test("a table that cannot be read says nothing rather than none", () => {
	expect(establishedPeers(80, ["/nonexistent/tcp"])).toBeUndefined();
});
