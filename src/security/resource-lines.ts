// The lines a resource-only security review scans: a file's, a symbol's known lines, or every text
// file under a directory, read through the call's repository guard.
import { statSync } from "node:fs";
import { parseCanonicalId } from "../domain/claims.ts";
import type { ScannedLine } from "../domain/security-scan.ts";
import { echo } from "../domain/text.ts";
import { invalidArgument, notFound } from "../errors.ts";
import { listFiles } from "../repo/files.ts";
import type { RepoGuard } from "../repo/guard.ts";
import { readText } from "../repo/read.ts";

/** The lines a resource-only review scans: the resource's current content. */
export async function resourceLines(
	guard: RepoGuard,
	resourceId: string,
	lines: { start: number | null; end: number | null },
): Promise<ScannedLine[]> {
	const named = parseCanonicalId(resourceId);
	if (!named) {
		throw invalidArgument(
			`only file:, directory: and symbol: resources can be scanned; give status for a manual review of ${echo(resourceId)}`,
			{ field: "resource_id" },
		);
	}
	const asLines = (path: string, text: string, from = 1, to = Number.POSITIVE_INFINITY): ScannedLine[] =>
		text
			.split("\n")
			.map((t, i) => ({ path, line: i + 1, text: t }))
			.filter((l) => l.line >= from && l.line <= to);
	const read = (path: string) => {
		const text = readText(guard, path, 16 * 1024 * 1024);
		if (text === undefined) throw notFound(`${path} cannot be read as text`, { path });
		return text;
	};
	if (named.type === "file") return asLines(named.path, read(named.path));
	if (named.type === "symbol") {
		if (lines.start === null || lines.end === null)
			throw notFound(`resource ${resourceId} has no known lines: claim it first`, {
				resource_id: resourceId,
			});
		return asLines(named.path, read(named.path), lines.start, lines.end);
	}
	const dir = guard.resolve(named.path === "" ? "." : named.path);
	if (!statSync(dir.abs).isDirectory())
		throw invalidArgument(`${named.path} is not a directory`, { field: "resource_id" });
	const out: ScannedLine[] = [];
	for (const path of await listFiles(guard.root, dir.rel)) {
		const text = readText(guard, path, 16 * 1024 * 1024);
		if (text !== undefined) out.push(...asLines(path, text));
	}
	return out;
}
