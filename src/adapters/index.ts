// What each agent CLI needs beyond its command line to work unattended in a launched session: how
// its MCP server is configured for this launch only, what lets it edit files and call Roundtable's
// tools without asking (inside Roundtable's sandbox, which is the boundary), and what switches its
// own outside traffic off. One module per CLI; a CLI without one (generic) gets the session's
// environment alone, which is all `roundtable mcp stdio` needs to find the session.

import type { Adapter, ClientCommand, ClientLaunch } from "./adapter.ts";
import { claude } from "./claude.ts";
import { codex } from "./codex.ts";
import { gemini } from "./gemini.ts";

export type { ClientCommand, ClientLaunch };

const ADAPTERS: Record<string, Adapter> = { codex, claude, gemini };

export function clientCommand(adapter: string, command: string, launch: ClientLaunch): ClientCommand {
	const base = command.trim().split(/\s+/).filter(Boolean);
	const known = ADAPTERS[adapter];
	if (known) return known.client(base, launch);
	return { argv: [...base, ...(launch.prompt === undefined ? [] : [launch.prompt])], env: {}, files: [] };
}

/** The first message of a retried headless session whose CLI resumes its conversation. */
export function resumePrompt(attempt: number, after: string): string {
	return `Roundtable started you again (attempt ${attempt}): your previous run ended (${after}) before you finished. Your workspace is as you left it. Continue where you left off; call agent.brief if you are unsure what is next.`;
}

/** The CLI's conversation id, if this line of its headless output names it (adapters with a module only). */
export function externalSessionId(adapter: string, line: string): string | undefined {
	const known = ADAPTERS[adapter];
	if (!known || !line.startsWith("{")) return undefined;
	try {
		const event = JSON.parse(line) as unknown;
		return event !== null && typeof event === "object" && !Array.isArray(event)
			? known.sessionId(event as Record<string, unknown>)
			: undefined;
	} catch {
		return undefined;
	}
}
