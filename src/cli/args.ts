// A small strict flag parser: `--name value`, `--name=value`, boolean `--name`. Anything it cannot
// use is a UsageError (exit 2) with a did-you-mean.
import { didYouMean, quoted, suggestion } from "../domain/text.ts";

export type FlagKind = "string" | "boolean" | "integer" | "duration";

export interface FlagSpec {
	kind: FlagKind;
	/** Shown in help, e.g. "DIR". */
	value?: string;
	help: string;
}

export type Flags = Record<string, string | boolean | number | undefined>;

export class UsageError extends Error {
	override name = "UsageError";
}

/**
 * `positional` names the string flags that bare arguments fill, in order (`agents enable ID`,
 * `answer REQUEST TEXT`); a flag given by name is not filled again.
 */
export function parseFlags(
	argv: readonly string[],
	spec: Record<string, FlagSpec>,
	positional: string | readonly string[] = [],
): Flags {
	const flags: Flags = {};
	const bare = typeof positional === "string" ? [positional] : positional;
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i] as string;
		if (!arg.startsWith("--") || arg === "--") {
			const next = bare.find((name) => !(name in flags));
			if (next === undefined || arg === "--" || arg.startsWith("-")) {
				throw new UsageError(`unexpected argument ${quoted(arg)}`);
			}
			flags[next] = arg;
			continue;
		}
		const eq = arg.indexOf("=");
		const name = arg.slice(2, eq === -1 ? undefined : eq);
		const flag = spec[name];
		if (!flag) {
			throw new UsageError(
				`unknown flag ${quoted(`--${name}`)}${suggestion(didYouMean(name, Object.keys(spec))?.replace(/^/, "--"))}`,
			);
		}
		if (name in flags) throw new UsageError(`--${name} given twice`);
		if (flag.kind === "boolean") {
			if (eq !== -1) throw new UsageError(`--${name} takes no value`);
			flags[name] = true;
			continue;
		}
		let value: string | undefined;
		if (eq !== -1) value = arg.slice(eq + 1);
		else {
			value = argv[i + 1];
			i++;
		}
		if (value === undefined) throw new UsageError(`--${name} needs a value (${flag.value ?? "VALUE"})`);
		if (flag.kind === "duration") {
			flags[name] = parseDuration(name, value);
		} else if (flag.kind === "integer") {
			if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
				throw new UsageError(`--${name} must be an integer (was ${quoted(value)})`);
			}
			flags[name] = Number(value);
		} else flags[name] = value;
	}
	return flags;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `500ms`, `1s`, `2m`, `1h` → milliseconds (a positive whole number). */
function parseDuration(name: string, value: string): number {
	const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value);
	const ms = m ? Math.round(Number(m[1]) * (UNITS[m[2] as string] as number)) : Number.NaN;
	if (!(ms > 0))
		throw new UsageError(`--${name} must be a positive duration like 500ms, 1s or 2m (was ${quoted(value)})`);
	return ms;
}
