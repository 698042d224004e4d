// The HTTP transport as tests and benches run it: a real Bun.serve on 127.0.0.1, port 0 (the OS
// picks), no TLS, small limits, healthy, and loopback_auth none (a request without a credential is
// the operator; the project's operator token and capabilities still resolve); each caller overrides
// what it is about.

import { operatorTokens } from "../../src/config/operator-token.ts";
import { callerOf } from "../../src/dispatch.ts";
import type { Runtime } from "../../src/runtime.ts";
import { resolveCapability } from "../../src/sessions/capability.ts";
import { type HttpOptions, type HttpServer, startHttp } from "../../src/transports/http.ts";
import { InFlight } from "../../src/transports/inflight.ts";

export function loopbackHttp(rt: Runtime, options: Partial<HttpOptions> = {}): HttpServer {
	return startHttp(callerOf(rt), {
		address: "127.0.0.1:0",
		operatorTokens: operatorTokens(rt.root),
		loopbackAuth: "none",
		identify: (capability) => resolveCapability(rt.store, capability),
		tls: undefined,
		maxBodyBytes: 1024 * 1024,
		maxSessions: 16,
		inflight: new InFlight(),
		health: async () => "healthy-idle",
		...options,
	});
}
