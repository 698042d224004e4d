// The system part of every sandbox: the distribution's runtime read-only (/usr, and /bin, /lib*,
// /sbin as links or folders, whichever the host has) and from /etc only a listed set. This list is
// what a sandbox shows of the host beyond its tools and its own directory; nothing else exists.
import {
	existsSync,
	lstatSync,
	mkdtempSync,
	readdirSync,
	readFileSync,
	readlinkSync,
	realpathSync,
	writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

let resolvCopy: string | undefined;
/**
 * resolv.conf as a file of our own: the host's often links into /run (systemd-resolved), which no
 * sandbox shows. Copied once per process into a private folder.
 */
function resolvConf(): string | undefined {
	const real = (() => {
		try {
			return realpathSync("/etc/resolv.conf");
		} catch {
			return undefined;
		}
	})();
	if (!real) return undefined;
	if (under(real, "/etc") || under(real, "/usr")) return "/etc/resolv.conf";
	if (!resolvCopy) {
		const dir = mkdtempSync(join(tmpdir(), "roundtable-etc-"));
		resolvCopy = join(dir, "resolv.conf");
		writeFileSync(resolvCopy, readFileSync(real), { mode: 0o644 });
	}
	return resolvCopy;
}

/** bwrap arguments that build the system part on the new (empty) root. */
export function systemArgs(): string[] {
	const args: string[] = [];
	for (const dir of RUNTIME) {
		const stat = lstatSync(dir, { throwIfNoEntry: false });
		if (!stat) continue;
		if (stat.isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
		else if (stat.isDirectory()) args.push("--ro-bind", dir, dir);
	}
	args.push("--dir", "/etc");
	for (const name of etcEntries()) {
		const host = name === "resolv.conf" ? resolvConf() : join("/etc", name);
		if (host && existsSync(host)) args.push("--ro-bind", host, join("/etc", name));
	}
	args.push("--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp");
	return args;
}
