// Where the owner listens, as the config says. `peekEndpoints` reads just that without validating
// the whole file: the stdio bridge and `mcp call --socket` must start fast and never load the schema
// library. The owner itself always loads and validates the config in full.
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { parse } from "yaml";
import { type Config, defaultConfig } from "./defaults.ts";
import { CONFIG_PATH } from "./paths.ts";

export interface Endpoints {
	/** The configured Streamable HTTP endpoint (a live owner's owner.json has the port it got). */
	httpUrl: string;
	socketPath: string;
}

/** The endpoints an `mcp` config section names; a relative socket path is under `root`. */
export function endpointsOf(root: string, mcp: Config["mcp"]): Endpoints {
	const tls = mcp.tls_cert_file !== "" && mcp.tls_key_file !== "";
	return {
		httpUrl: `${tls ? "https" : "http"}://${mcp.http_address}/mcp`,
		socketPath: resolve(root, mcp.socket_path),
	};
}

export function peekEndpoints(root: string): Endpoints {
	let mcp: Record<string, unknown> = {};
	try {
		const doc = parse(readFileSync(join(root, CONFIG_PATH), "utf8")) as {
			mcp?: Record<string, unknown>;
		} | null;
		mcp = doc?.mcp ?? {};
	} catch {
		// no config, or one the owner would reject anyway: fall back to the defaults
	}
	// Each value the file gives as a non-empty string, else the default.
	const values = Object.entries(defaultConfig().mcp).map(([key, fallback]) => {
		const value = mcp[key];
		return [key, typeof value === "string" && value !== "" ? value : fallback];
	});
	return endpointsOf(root, Object.fromEntries(values) as Config["mcp"]);
}
