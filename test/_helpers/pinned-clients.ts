// The pinned real CLIs for a test file: installed once before its tests (when the file can use them
// at all), and each one's binary by name for the tests that run it.
import { beforeAll } from "bun:test";
import { type ClientName, type Installed, install } from "./real-clients-helpers.ts";

export function pinnedClients<N extends ClientName>(names: N[], wanted: boolean): (name: N) => string {
	const clients: Partial<Record<N, Installed>> = {};
	beforeAll(async () => {
		if (!wanted) return;
		for (const name of names) clients[name] = await install(name);
	}, 20 * 60_000);
	return (name) => {
		const c = clients[name];
		if (c?.kind !== "ok") throw new Error(`${name} is not installed: ${JSON.stringify(c)}`);
		return c.bin;
	};
}
