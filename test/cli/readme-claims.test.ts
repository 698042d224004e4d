// Nothing in the README claims what the program does not do: every `roundtable <command> --flag` it
// shows (in code spans and code blocks) names a command that exists and flags that command takes,
// and the fields it says `mcp inspect --json` prints are the ones it prints.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { commandFlags } from "../../src/cli/index.ts";
import { REPO, runCli } from "../_helpers/helpers.ts";

const README = readFileSync(join(REPO, "README.md"), "utf8");

/** Each command line the README shows: from `roundtable` to the end of its code span or line. */
function commandLines(text: string): string[] {
	const code = [
		...[...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((m) => (m[1] as string).split("\n")),
		...[...text.replace(/```[\s\S]*?```/g, "").matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string),
	];
	return code.flatMap((line) =>
		// A word then a space or the end: `roundtable dashboard: …` is a line the owner prints.
		[...line.matchAll(/(?:^|[\s(|&;])roundtable ([a-z][a-z-]*(?: [a-z][a-z-]*)?)(?=\s|$)([^#|&;]*)/g)].map(
			(m) => `${m[1]}${m[2]}`,
		),
	);
}

test("every roundtable command and --flag the README shows exists", () => {
	const commands = commandFlags();
	const lines = commandLines(README);
	expect(lines.length).toBeGreaterThan(40);
	const wrong: string[] = [];
	for (const line of lines) {
		const words = line.split(/\s+/);
		const two = `${words[0]} ${words[1] ?? ""}`;
		const name = commands.has(two)
			? two
			: commands.has(words[0] as string)
				? (words[0] as string)
				: undefined;
		if (name === undefined) {
			// A group named alone (`roundtable claims`), or a word that is no command.
			if (![...commands.keys()].some((c) => c.startsWith(`${words[0]} `))) wrong.push(`no command: ${line}`);
			continue;
		}
		// Only the flags of this command: what follows `--` is the agent's own command line.
		const own = line.split(" -- ")[0] as string;
		for (const flag of own.matchAll(/(?:^|[\s[|])--([a-z][a-z-]*)/g))
			if (!commands.get(name)?.includes(flag[1] as string))
				wrong.push(`${name} has no --${flag[1]}: ${line}`);
	}
	expect(wrong).toEqual([]);
	// What was checked, so a regex that stopped matching would show.
	const flags = lines.flatMap((l) => [...(l.split(" -- ")[0] as string).matchAll(/--[a-z]/g)]).length;
	expect(flags).toBeGreaterThan(60);
});

test("the fields the README says mcp inspect --json prints are the ones it prints", async () => {
	const said = /`--json` prints `\[\{([a-z_, ]+)\}\]`/.exec(README)?.[1];
	expect(said).toBeDefined();
	const r = await runCli(["mcp", "inspect", "--json"]);
	const printed = JSON.parse(r.stdout) as Record<string, unknown>[];
	expect(Object.keys(printed[0] ?? {})).toEqual((said as string).split(", "));
});
