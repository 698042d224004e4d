// The few config values clients need (where the owner listens), read without validating the whole
// file: the stdio bridge and `mcp call --socket` must start fast and never load the schema library.
// The owner itself always loads and validates the config in full.
import { readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { parse } from "yaml";
import { CONFIG_PATH } from "./paths.ts";

export interface Endpoints {
	httpAddress: string;
	socketPath: string;
	tls: boolean;
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
	const str = (v: unknown, fallback: string) => (typeof v === "string" && v !== "" ? v : fallback);
	const socket = str(mcp.socket_path, ".roundtable/mcp/roundtable.sock");
	return {
		httpAddress: str(mcp.http_address, "127.0.0.1:7117"),
		socketPath: isAbsolute(socket) ? socket : join(root, socket),
		tls: str(mcp.tls_cert_file, "") !== "" && str(mcp.tls_key_file, "") !== "",
	};
}
