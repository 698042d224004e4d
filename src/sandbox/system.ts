// The system part of every sandbox: the distribution's runtime read-only (/usr, and /bin, /lib*,
// /sbin as links or folders, whichever the host has) and from /etc only a listed set. This list is
// what a sandbox shows of the host beyond its tools and its own directory; nothing else exists.
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { type MemoryFile, memoryFile } from "./memory-file.ts";
import { under } from "./tools.ts";

const RUNTIME = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** From /etc: names, prefixes ending in `*`, and paths inside a folder of it. */
export const ETC_ALLOWED = [
	"passwd",
	"group",
	"nsswitch.conf",
	"hosts",
	"resolv.conf",
	"ssl/certs",
	"ssl/openssl.cnf",
	"ca-certificates*",
	"alternatives",
	"ld.so.*",
	"localtime",
	"timezone",
];

let etcNames: string[] | undefined;
/** The /etc entries of the list that exist here (read once per process). */
function etcEntries(): string[] {
	if (!etcNames) {
		let all: string[] = [];
		try {
			all = readdirSync("/etc");
		} catch {
			// no /etc: nothing to show
		}
		etcNames = all
			.filter((name) =>
				ETC_ALLOWED.some((a) => (a.endsWith("*") ? name.startsWith(a.slice(0, -1)) : name === a)),
			)
			// ssl/: the certificates and OpenSSL's config, never private/ (the host's TLS keys).
			.concat(ETC_ALLOWED.filter((a) => a.includes("/")))
			.sort();
	}
	return etcNames;
}

let resolv: MemoryFile | undefined | null;
/**
 * resolv.conf as data of our own when the host's links outside /etc and /usr (systemd-resolved's
 * /run): no sandbox shows /run. Read once per process.
 */
function resolvData(): MemoryFile | undefined {
	if (resolv === undefined) {
		let real: string | undefined;
		try {
			real = realpathSync("/etc/resolv.conf");
		} catch {
			real = undefined;
		}
		resolv = real && !under(real, "/etc") && !under(real, "/usr") ? memoryFile(readFileSync(real)) : null;
	}
	return resolv ?? undefined;
}

/** bwrap arguments that build the system part on the new (empty) root; descriptors go to `fds` (as 3 + index). */
export function systemArgs(fds: number[]): string[] {
	const args: string[] = [];
	for (const dir of RUNTIME) {
		const stat = lstatSync(dir, { throwIfNoEntry: false });
		if (!stat) continue;
		if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
		else if (stat.isDirectory()) args.push("--ro-bind", dir, dir);
	}
	args.push("--dir", "/etc");
	for (const name of etcEntries()) {
		const data = name === "resolv.conf" ? resolvData() : undefined;
		if (data) {
			args.push("--ro-bind-data", String(3 + fds.length), "/etc/resolv.conf");
			fds.push(data.open());
		} else if (existsSync(join("/etc", name))) args.push("--ro-bind", join("/etc", name), join("/etc", name));
	}
	args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
	return args;
}
