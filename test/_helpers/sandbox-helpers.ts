// What a sandboxed `find / -maxdepth 3` printed, held to the allowlist: the system's folders, the
// listed /etc entries, and what a test names (folders shown whole, and the way to each).
import { ETC_ALLOWED } from "../../src/sandbox/system.ts";

const SYSTEM = [
	"/",
	"/usr",
	"/bin",
	"/sbin",
	"/lib",
	"/lib32",
	"/lib64",
	"/libx32",
	"/dev",
	"/proc",
	"/tmp",
	"/etc",
];

/** `/a/b/c` → `/`, `/a`, `/a/b`, `/a/b/c`. */
const ancestors = (p: string) => p.split("/").map((_, i, a) => a.slice(0, i + 1).join("/") || "/");

/**
 * The paths of `seen` the allowlist does not account for. `under`: folders shown with what is in
 * them; `wayTo`: paths whose folders may appear on the way; `exact`: single paths of its own.
 */
export function strayPaths(
	seen: readonly string[],
	allow: { under: readonly string[]; wayTo: readonly string[]; exact?: readonly string[] },
): string[] {
	const exact = new Set([
		...SYSTEM,
		...(allow.exact ?? []),
		...allow.wayTo.flatMap(ancestors),
		...ETC_ALLOWED.filter((e) => e.includes("/")).flatMap((e) => ancestors(`/etc/${e}`)),
	]);
	const under = [...allow.under, ...ETC_ALLOWED.map((e) => `/etc/${e.replace("*", "")}`)];
	return seen.filter((p) => !exact.has(p) && !under.some((a) => p.startsWith(a)));
}
