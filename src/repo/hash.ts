// Content hashes of claimable resources (reference §6), read through the guard: a file's bytes, a
// symbol's lines, a directory's visible files. "" means there is nothing to hash (a file that does
// not exist yet, a resource that is not in the repository), which never makes a claim stale.
import { statSync } from "node:fs";
import { sha256 } from "../domain/canonical.ts";
import type { Scope } from "../domain/claims.ts";
import { ToolError } from "../errors.ts";
import { listFiles } from "./files.ts";
import type { RepoGuard } from "./guard.ts";
import { readAll } from "./read.ts";

const hex = (hasher: Bun.CryptoHasher) => hasher.digest("hex");

function fileBytes(guard: RepoGuard, rel: string): Buffer | undefined {
	try {
		return readAll(guard.open(rel));
	} catch (err) {
		if (err instanceof ToolError && (err.code === "not_found" || err.code === "invalid_argument"))
			return undefined;
		throw err;
	}
}

/** Lines start..end (1-based, inclusive) joined with "\n", or undefined when the file is missing. */
function symbolText(guard: RepoGuard, path: string, start: number, end: number): string | undefined {
	const bytes = fileBytes(guard, path);
	return bytes
		?.toString("utf8")
		.split("\n")
		.slice(start - 1, end)
		.join("\n");
}

export async function contentHash(guard: RepoGuard, scope: Scope): Promise<string> {
	const path = scope.path;
	if (path === null) return "";
	switch (scope.resource_type) {
		case "file": {
			const bytes = fileBytes(guard, path);
			return bytes ? sha256(bytes) : "";
		}
		case "symbol": {
			if (scope.start_line === null || scope.end_line === null) return "";
			const text = symbolText(guard, path, scope.start_line, scope.end_line);
			return text === undefined ? "" : sha256(text);
		}
		case "directory": {
			let isDir = false;
			try {
				isDir = statSync(guard.resolve(path === "" ? "." : path).abs).isDirectory();
			} catch {
				return "";
			}
			if (!isDir) return "";
			const hasher = new Bun.CryptoHasher("sha256");
			for (const rel of await listFiles(guard.root, path)) {
				const bytes = fileBytes(guard, rel);
				if (bytes) hasher.update(`${rel}\0`).update(bytes).update("\0");
			}
			return hex(hasher);
		}
		default:
			return "";
	}
}
