// The HTTP transport as tests and benches run it: a real Bun.serve on 127.0.0.1, port 0 (the OS
// picks), no token or TLS, small limits, healthy; each caller overrides what it is about.
import type { Runtime } from "../src/runtime.ts";
import { type HttpOptions, type HttpServer, startHttp } from "../src/transports/http.ts";
import { InFlight } from "../src/transports/inflight.ts";

export function loopbackHttp(rt: Runtime, options: Partial<HttpOptions> = {}): HttpServer {
	return startHttp(rt, {
		address: "127.0.0.1:0",
		token: undefined,
		tls: undefined,
		maxBodyBytes: 1024 * 1024,
		maxSessions: 16,
		inflight: new InFlight(),
		health: async () => "healthy-idle",
		...options,
	});
}
