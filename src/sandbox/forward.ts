// Inside a launched agent's sandbox, before the agent: a loopback listener that relays each
// connection to the egress proxy's Unix socket (bound in), so the agent's HTTPS_PROXY names its own
// loopback while its network namespace has no way out. It then runs the agent, passes on the stop
// signals it receives (bubblewrap forwards none), and exits with the agent's status.
import { constants } from "node:os";
import type { Socket } from "bun";
import { farSide, Outbox } from "./outbox.ts";

export const FORWARD_PORT = 3128;

/** The hidden first word that runs it: `roundtable __sandbox-forward SOCKET -- ARGV…`. */
export const SANDBOX_FORWARD = "__sandbox-forward";

export async function forwardAndRun(socketPath: string, argv: string[]): Promise<number> {
	type Relay = { up?: Socket<undefined>; toProxy: Outbox; toAgent: Outbox };
	const server = Bun.listen<Relay>({
		hostname: "127.0.0.1",
		port: FORWARD_PORT,
		socket: {
			open(s) {
				const r: Relay = { toProxy: new Outbox(() => r.up), toAgent: new Outbox(() => s) };
				s.data = r;
				Bun.connect({
					unix: socketPath,
					socket: farSide(s, r.toAgent, r.toProxy, (up) => {
						r.up = up;
					}),
				}).catch(() => s.end());
			},
			data(s, bytes) {
				s.data.toProxy.send(bytes);
			},
			drain(s) {
				s.data.toAgent.drain();
			},
			close(s) {
				s.data.up?.end();
			},
		},
	});
	const child = Bun.spawn(argv, { stdio: ["inherit", "inherit", "inherit"] });
	for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => child.kill(signal));
	await child.exited;
	server.stop(true);
	if (child.signalCode) return 128 + (constants.signals[child.signalCode as NodeJS.Signals] ?? 0);
	return child.exitCode ?? 1;
}
