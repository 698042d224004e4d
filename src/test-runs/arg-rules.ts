// The arguments test.run accepts after an allowed prefix, per program. An allowed prefix says which
// program runs; these rules stop its arguments from running code given on the command line or
// loading code from outside the run's directory. Pure: where a path really leads (realpath,
// symlinks) is answered by the `inside` function the caller passes in.
//
// Programs whose own options we can list (make, bun test, go, cargo, pytest, npm's own options)
// get an allowlist: an unknown option is refused. Options after a package script's name (npm after
// `--`, pnpm, yarn, bun run) reach whatever the script runs, and node-based runners (vitest, jest,
// node) accept hundreds of options and config keys: those get a denylist of the options that run
// or load code, plus path checks on every value that looks like a path and every bare argument.

/** How an option's value is judged. */
type Kind =
	| "flag" // no value
	| "optional" // a value only when attached (`-j4`, `--jobs=4`)
	| "value" // a value that is not a path
	| "eval" // runs code given on the command line: refused
	| "code" // names a file or directory that is read or loaded: must exist inside
	| "out" // names a file or directory to write: must lead inside
	| "module" // a module to load: a path inside, or a package in the run's node_modules
	| "reporter" // a built-in name, or a path inside
	| "plugin" // pytest -p: `no:NAME`, or a module file inside
	| "ini" // pytest -o key=value: only keys that load nothing
	| "assign"; // make VAR=value: refused

interface Rules {
	/** Unknown options refused (an allowlist), or allowed (a denylist). */
	allowlist: boolean;
	long: Record<string, Kind>;
	short: Record<string, Kind>;
	/** GNU getopt_long, nopt and argparse read a unique prefix of a long option as the option. */
	abbrev?: boolean;
	/** go: `-name` is a long option. */
	singleDashLong?: boolean;
	/** Option names compared without case and dashes (yargs: --setupFiles is --setup-files). */
	fold?: boolean;
	/** What a bare argument is: a path (must lead inside), a go package, or a free value. */
	bare: "path" | "package" | "value" | "pytest" | "make";
	/** What follows `--` (go: `-args`): these rules, or "loose" (only path-looking values checked). */
	rest: "same" | "loose" | Rules;
	/** The word after which everything is `rest` (go's `-args`). */
	restMarker?: string;
}

export type PathCheck = (value: string, mustExist: boolean) => string | undefined;
export interface Refusal {
	argument: string;
	reason: string;
}

const EVAL = "runs code given on the command line";

/** node, vitest, jest, mocha, and whatever a package script runs. */
const NODE: Rules = {
	allowlist: false,
	fold: true,
	long: {
		eval: "eval",
		print: "eval",
		exec: "eval",
		define: "eval",
		"script-shell": "eval",
		shell: "eval",
		"node-options": "eval",
		"use-node-version": "eval",
		install: "eval",
		require: "module",
		import: "module",
		loader: "module",
		"experimental-loader": "module",
		preload: "module",
		"setup-files": "module",
		"setup-files-after-env": "module",
		"global-setup": "module",
		"global-teardown": "module",
		"test-runner": "module",
		runner: "module",
		transform: "module",
		resolver: "module",
		"snapshot-resolver": "module",
		"test-sequencer": "module",
		sequencer: "module",
		environment: "reporter",
		"test-environment": "reporter",
		reporter: "reporter",
		reporters: "reporter",
		"test-reporter": "reporter",
		config: "code",
		"config-loader": "value",
		workspace: "code",
		project: "code",
		dir: "code",
		root: "code",
		"root-dir": "code",
		roots: "code",
		cwd: "code",
		prefix: "code",
		"env-file": "code",
		"tsconfig-override": "code",
		userconfig: "code",
		globalconfig: "code",
		"modules-dir": "code",
		"module-directories": "code",
		"module-paths": "code",
		"watch-plugins": "module",
		"global-dir": "out",
		"store-dir": "out",
		"lockfile-dir": "code",
		"rc-filename": "code",
		"use-yarnrc": "code",
		"coverage-dir": "out",
		"output-file": "out",
		outfile: "out",
	},
	short: { e: "eval", p: "eval", r: "module", c: "code", C: "code", d: "eval" },
	bare: "path",
	rest: "same",
};

/** GNU make. */
const MAKE: Rules = {
	abbrev: true,
	allowlist: true,
	long: {
		file: "code",
		makefile: "code",
		directory: "code",
		"include-dir": "code",
		eval: "eval",
		jobs: "optional",
		"load-average": "optional",
		"output-sync": "optional",
		"keep-going": "flag",
		"no-keep-going": "flag",
		silent: "flag",
		quiet: "flag",
		"always-make": "flag",
		"ignore-errors": "flag",
		"dry-run": "flag",
		"just-print": "flag",
		recon: "flag",
		"print-directory": "flag",
		"no-print-directory": "flag",
		"no-builtin-rules": "flag",
		"no-builtin-variables": "flag",
		"environment-overrides": "flag",
		trace: "flag",
		"warn-undefined-variables": "flag",
		"what-if": "out",
		"new-file": "out",
		"assume-new": "out",
		"old-file": "out",
		"assume-old": "out",
	},
	short: {
		f: "code",
		C: "code",
		I: "code",
		E: "eval",
		j: "optional",
		l: "optional",
		O: "optional",
		k: "flag",
		S: "flag",
		s: "flag",
		B: "flag",
		i: "flag",
		n: "flag",
		w: "flag",
		r: "flag",
		R: "flag",
		e: "flag",
		W: "out",
		o: "out",
	},
	bare: "make",
	rest: "same",
};

/** `bun test`. */
const BUN_TEST: Rules = {
	allowlist: true,
	long: {
		timeout: "value",
		"rerun-each": "value",
		only: "flag",
		todo: "flag",
		coverage: "flag",
		"coverage-reporter": "value",
		"coverage-dir": "out",
		bail: "optional",
		"test-name-pattern": "value",
		"update-snapshots": "flag",
		reporter: "value",
		"reporter-outfile": "out",
		"pass-with-no-tests": "flag",
		concurrent: "flag",
		randomize: "flag",
		seed: "value",
		"max-concurrency": "value",
		smol: "flag",
		silent: "flag",
		watch: "flag",
		dots: "flag",
		"only-failures": "flag",
		preload: "module",
		require: "module",
		config: "code",
		"env-file": "code",
		cwd: "code",
		"tsconfig-override": "code",
		conditions: "value",
		eval: "eval",
		print: "eval",
		define: "eval",
		install: "eval",
	},
	short: { t: "value", u: "flag", r: "module", c: "code", e: "eval", p: "eval", d: "eval", i: "eval" },
	bare: "path",
	rest: "same",
};

/** npm's own options before `--`; positionals and what follows `--` go to the script. */
const NPM: Rules = {
	abbrev: true,
	allowlist: true,
	long: {
		workspace: "value",
		workspaces: "flag",
		"include-workspace-root": "flag",
		"if-present": "flag",
		silent: "flag",
		quiet: "flag",
		loglevel: "value",
		prefix: "code",
	},
	short: { w: "value", ws: "flag", s: "flag", C: "code" },
	bare: "path",
	rest: NODE,
};

const GO_OUT = ["o", "coverprofile", "cpuprofile", "memprofile", "blockprofile", "mutexprofile", "trace"];
const GO_FLAGS = ["v", "short", "race", "cover", "failfast", "benchmem", "json", "trimpath", "x", "n", "a"];
const GO_VALUES = ["run", "skip", "count", "timeout", "covermode", "coverpkg", "bench", "benchtime", "cpu"];
const GO_MORE = ["p", "parallel", "tags", "shuffle", "list", "fuzz", "fuzztime", "fuzzminimizetime", "vet"];

/** `go test`: Go's flag package (`-name` or `--name`, `=value` or the next word; no clusters). */
const GO: Rules = {
	allowlist: true,
	singleDashLong: true,
	long: {
		...Object.fromEntries(GO_OUT.map((n) => [n, "out"])),
		...Object.fromEntries(GO_FLAGS.map((n) => [n, "flag"])),
		...Object.fromEntries([...GO_VALUES, ...GO_MORE].map((n) => [n, "value"])),
		outputdir: "out",
		C: "code",
		modfile: "code",
		overlay: "code",
		exec: "eval",
		toolexec: "eval",
		ldflags: "eval",
	},
	short: {},
	bare: "package",
	rest: "loose",
	restMarker: "args",
};

const CARGO_FLAGS = [
	"workspace",
	"all",
	"lib",
	"bins",
	"tests",
	"examples",
	"benches",
	"all-targets",
	"doc",
	"no-run",
	"no-fail-fast",
	"release",
	"all-features",
	"no-default-features",
	"quiet",
	"verbose",
	"frozen",
	"locked",
	"offline",
	"ignore-rust-version",
	"keep-going",
];
const CARGO_VALUES = ["package", "exclude", "bin", "test", "example", "bench", "features", "profile"];

/** `cargo test` (clap); what follows `--` goes to the test binary, the project's own code. */
const CARGO: Rules = {
	allowlist: true,
	long: {
		...Object.fromEntries(CARGO_FLAGS.map((n) => [n, "flag"])),
		...Object.fromEntries(
			[...CARGO_VALUES, "target", "jobs", "color", "message-format"].map((n) => [n, "value"]),
		),
		timings: "optional",
		"manifest-path": "code",
		config: "code",
		"target-dir": "out",
	},
	short: { p: "value", F: "value", j: "value", r: "flag", q: "flag", v: "flag", C: "code", Z: "eval" },
	bare: "value",
	rest: "loose",
};

const PYTEST_FLAGS = [
	"lf",
	"last-failed",
	"ff",
	"failed-first",
	"nf",
	"new-first",
	"sw",
	"stepwise",
	"stepwise-skip",
	"co",
	"collect-only",
	"strict-markers",
	"strict-config",
	"strict",
	"no-header",
	"no-summary",
	"showlocals",
	"noconftest",
	"cache-clear",
	"exitfirst",
	"quiet",
	"verbose",
	"runxfail",
	"setup-show",
	"full-trace",
	"disable-warnings",
	"continue-on-collection-errors",
	"doctest-modules",
];
const PYTEST_VALUES = ["maxfail", "tb", "durations", "durations-min", "capture", "import-mode", "color"];

/** pytest (argparse: abbreviations, `-kEXPR`, `--opt=value`). */
const PYTEST: Rules = {
	abbrev: true,
	allowlist: true,
	long: {
		...Object.fromEntries(PYTEST_FLAGS.map((n) => [n, "flag"])),
		...Object.fromEntries([...PYTEST_VALUES, "deselect", "keyword", "ignore-glob"].map((n) => [n, "value"])),
		ignore: "out",
		junitxml: "out",
		"junit-xml": "out",
		basetemp: "out",
		rootdir: "code",
		confcutdir: "code",
		"config-file": "code",
		"override-ini": "ini",
	},
	short: {
		k: "value",
		m: "value",
		r: "value",
		W: "value",
		x: "flag",
		q: "flag",
		v: "flag",
		s: "flag",
		l: "flag",
	},
	bare: "pytest",
	rest: "same",
};
PYTEST.short.p = "plugin";
PYTEST.short.c = "code";
PYTEST.short.o = "ini";

/** pytest -o keys that load no code and name no path. */
const SAFE_INI = new Set(["console_output_style", "log_cli", "log_cli_level", "log_level", "xfail_strict"]);

/** The rules for a command, from its program and the words of its allowed prefix. */
export function rulesFor(argv: readonly string[]): Rules | undefined {
	const base = (argv[0] ?? "").split("/").pop() ?? "";
	if (base === "npm") return NPM;
	if (base === "pnpm" || base === "yarn" || base === "npx" || base === "node") return NODE;
	if (["vitest", "jest", "mocha", "ava", "tap"].includes(base)) return NODE;
	if (base === "bun") return argv[1] === "test" ? BUN_TEST : NODE;
	if (base === "make" || base === "gmake") return MAKE;
	if (base === "go") return GO;
	if (base === "cargo") return CARGO;
	if (base === "pytest" || base === "py.test") return PYTEST;
	if (/^python[0-9.]*$/.test(base) && argv[1] === "-m" && argv[2] === "pytest") return PYTEST;
	return undefined;
}

const fold = (name: string) => name.toLowerCase().replace(/-/g, "");

/** An option's kind: exact, else a unique prefix (GNU getopt_long and nopt accept abbreviations). */
function lookup(rules: Rules, name: string): { kind?: Kind; name: string; why?: string } {
	const key = rules.fold ? fold(name) : name;
	const table = rules.fold
		? Object.fromEntries(Object.entries(rules.long).map(([k, v]) => [fold(k), v]))
		: rules.long;
	const exact = table[key];
	if (exact) return { kind: exact, name };
	if (!rules.abbrev) return { name };
	const names = Object.keys(table).filter((k) => k.startsWith(key));
	const risky = names.filter((k) => !["flag", "value", "optional"].includes(table[k] ?? ""));
	// A prefix of a risky option is judged as that option, whatever else it might abbreviate.
	const pick = risky.length > 0 ? risky : names;
	if (pick.length === 1 && pick[0]) return { kind: table[pick[0]], name: pick[0] };
	if (pick.length > 1) return { name, why: `is an ambiguous abbreviation (of --${pick.join(", --")})` };
	return { name };
}

const looksLikePath = (v: string) => v.startsWith("/") || v.startsWith("~") || /(^|\/)\.\.(\/|$)/.test(v);

/** Why `value` of an option of kind `kind` is refused, if it is. */
function judge(kind: Kind, value: string, inside: PathCheck): string | undefined {
	switch (kind) {
		case "eval":
		case "assign":
			return EVAL;
		case "code":
			return inside(value, true);
		case "out":
			return inside(value, false);
		case "module":
			if (value.startsWith(".") || value.startsWith("/") || value.startsWith("~")) return inside(value, true);
			// A bare package name is resolved up the directory tree too: only the run's own counts.
			return inside(
				`node_modules/${value
					.split("/")
					.slice(0, value.startsWith("@") ? 2 : 1)
					.join("/")}`,
				true,
			)
				? `names module '${value}', which is not installed in the run's node_modules`
				: undefined;
		case "reporter":
			return value.includes("/") || value.startsWith(".") || value.startsWith("~")
				? inside(value, true)
				: undefined;
		case "plugin": {
			if (value.startsWith("no:")) return undefined;
			const file = value.replace(/\./g, "/");
			const missing = inside(`${file}.py`, true) && inside(`${file}/__init__.py`, true);
			return missing
				? `loads plugin '${value}', which is not a module inside the run's directory`
				: undefined;
		}
		case "ini": {
			const key = value.split("=")[0] ?? "";
			return SAFE_INI.has(key) ? undefined : `overrides ini key '${key}', which can load code or name paths`;
		}
		default:
			return looksLikePath(value) ? inside(value, false) : undefined;
	}
}

function bareArgument(rules: Rules, arg: string, inside: PathCheck): string | undefined {
	switch (rules.bare) {
		case "value":
			return undefined;
		case "make":
			if (arg.includes("="))
				return "is a variable assignment, which overrides the Makefile and can run any command";
			return inside(arg, false);
		case "pytest":
			// pytest 8.2+ reads more arguments from `@file`: arguments these rules never see.
			if (arg.startsWith("@")) return "reads more arguments from a file, which test.run cannot check";
			return inside(arg.split("::")[0] ?? arg, false);
		case "package":
			if (arg !== "." && !arg.startsWith("./") && !arg.startsWith("../"))
				return "is not a relative package path (./pkg); an import path may name code outside the project";
			return inside(arg.replace(/\/\.\.\.$/, "") || ".", false);
		default:
			return inside(arg, false);
	}
}

/**
 * The first argument of `args` (what follows the allowed prefix of a command run by `rules`)
 * that is refused, and why; undefined when all are allowed.
 */
export function checkArguments(
	rules: Rules,
	args: readonly string[],
	inside: PathCheck,
): Refusal | undefined {
	for (let i = 0; i < args.length; i++) {
		const arg = args[i] ?? "";
		const refuse = (reason: string | undefined) => (reason ? { argument: arg, reason } : undefined);
		const rest = args.slice(i + 1);
		if (arg === "--" || (rules.restMarker && /^--?([^=]*)$/.exec(arg)?.[1] === rules.restMarker)) {
			if (rules.rest === "same") {
				for (const a of rest) {
					const r = bareArgument(rules, a, inside);
					if (r) return { argument: a, reason: r };
				}
				return undefined;
			}
			if (rules.rest === "loose") {
				for (const a of rest) {
					const value = a.includes("=") && a.startsWith("-") ? a.slice(a.indexOf("=") + 1) : a;
					const r = looksLikePath(value) ? inside(value, false) : undefined;
					if (r) return { argument: a, reason: r };
				}
				return undefined;
			}
			return checkArguments(rules.rest, rest, inside);
		}
		if (!arg.startsWith("-") || arg === "-") {
			const r =
				rules === NPM ? checkArguments(NODE, [arg], inside) : refuse(bareArgument(rules, arg, inside));
			if (r) return r;
			continue;
		}
		const long = arg.startsWith("--") || (rules.singleDashLong ?? false);
		if (long || (rules.short[arg.slice(1)] !== undefined && arg.length > 2)) {
			const body = arg.replace(/^--?/, "");
			const eq = body.indexOf("=");
			const name = eq < 0 ? body : body.slice(0, eq);
			const found =
				arg.startsWith("--") || rules.singleDashLong
					? lookup(rules, name)
					: { kind: rules.short[name], name };
			if (found.why) return refuse(found.why);
			const kind = found.kind;
			if (kind === undefined) {
				if (rules.allowlist) return refuse(`is not an option test.run allows for this program`);
				if (eq >= 0) {
					const r = refuse(judge("value", body.slice(eq + 1), inside));
					if (r) return r;
				}
				continue;
			}
			const what = found.name === name ? "" : ` (read as --${found.name})`;
			if (kind === "flag" || kind === "optional") {
				if (kind === "flag" && eq >= 0 && !rules.singleDashLong) return refuse(`takes no value${what}`);
				continue;
			}
			if (kind === "eval") return refuse(`${EVAL}${what}`);
			let value: string;
			if (eq >= 0) value = body.slice(eq + 1);
			else if (i + 1 < args.length) value = args[++i] ?? "";
			else return refuse(`needs a value${what}`);
			const r = judge(kind, value, inside);
			if (r) return { argument: arg, reason: eq >= 0 ? `${r}${what}` : `'${value}' ${r}${what}` };
			continue;
		}
		// A cluster of short options: flags, then at most one that takes the rest (or the next word).
		for (let j = 1; j < arg.length; j++) {
			const c = arg[j] ?? "";
			const kind = rules.short[c];
			if (kind === undefined) {
				if (rules.allowlist) return refuse(`-${c} is not an option test.run allows for this program`);
				break;
			}
			if (kind === "flag") continue;
			if (kind === "eval") return refuse(`-${c} ${EVAL}`);
			const attached = arg.slice(j + 1);
			if (kind === "optional") break;
			let value: string;
			if (attached !== "") value = attached;
			else if (i + 1 < args.length) value = args[++i] ?? "";
			else return refuse(`-${c} needs a value`);
			// `-f=X`: getopt reads `=X`, argparse and clap read `X`; both must pass.
			const values = value.startsWith("=") && attached !== "" ? [value, value.slice(1)] : [value];
			for (const v of values) {
				const r = judge(kind, v, inside);
				if (r) return { argument: arg, reason: `-${c} '${v}' ${r}` };
			}
			break;
		}
	}
	return undefined;
}
