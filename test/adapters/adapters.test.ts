// What each adapter hands its CLI for a launched session, in and out of the sandbox: the real Codex
// and Claude Code runs (test/launch/real-agents.test.ts) show these work; here, what each says and
// writes, where the prompt goes, and that the files it writes are private.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { clientCommand } from "../../src/adapters/index.ts";
import { removeTempDirs, tempDir } from "../_helpers/helpers.ts";

afterAll(removeTempDirs);

const launch = (sandboxed: boolean, prompt?: string) => ({
	dir: tempDir("rt-adapter-"),
	dirInside: "/session",
	bridge: { command: "/opt/rt/bin/roundtable", args: ["mcp", "stdio", "--root", "/workspace"] },
	variables: ["ROUNDTABLE_SESSION_SOCKET", "ROUNDTABLE_CAPABILITY"],
	sandboxed,
	headless: false,
	...(prompt !== undefined && { prompt }),
});

describe("the adapters", () => {
	test("codex: every setting a -c override, its own sandbox off only inside ours, the prompt last", () => {
		const inside = clientCommand("codex", "codex exec --json", launch(true, "Do T-1."));
		expect(inside.argv.slice(0, 3)).toEqual(["codex", "exec", "--json"]);
		expect(inside.argv.at(-1)).toBe("Do T-1.");
		const settings = inside.argv.filter((_, i) => inside.argv[i - 1] === "-c");
		expect(settings).toEqual([
			'mcp_servers.roundtable.command="/opt/rt/bin/roundtable"',
			'mcp_servers.roundtable.args=["mcp","stdio","--root","/workspace"]',
			'mcp_servers.roundtable.env_vars=["ROUNDTABLE_SESSION_SOCKET","ROUNDTABLE_CAPABILITY"]',
			'mcp_servers.roundtable.default_tools_approval_mode="approve"',
			"mcp_servers.roundtable.required=true",
			"features.plugins=false",
			"analytics.enabled=false",
			"check_for_update_on_startup=false",
			'approval_policy="never"',
			'sandbox_mode="danger-full-access"',
		]);
		const outside = clientCommand("codex", "codex", launch(false));
		expect(outside.argv.join(" ")).not.toContain("approval_policy");
		expect(outside.argv.join(" ")).not.toContain("sandbox_mode");
		expect(outside.files).toEqual([]);
	});

	test("claude: a private MCP file, strict; permissions off only inside ours; its traffic off", () => {
		const l = launch(true, "Do T-1.");
		const inside = clientCommand("claude", "claude -p", l);
		expect(inside.argv).toEqual([
			"claude",
			"-p",
			"--mcp-config",
			"/session/claude-mcp.json",
			"--permission-mode",
			"bypassPermissions",
			"--strict-mcp-config",
			"Do T-1.",
		]);
		expect(inside.env).toMatchObject({ IS_SANDBOX: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1" });
		expect(statSync(join(l.dir, "claude-mcp.json")).mode & 0o777).toBe(0o600);
		expect(JSON.parse(readFileSync(join(l.dir, "claude-mcp.json"), "utf8"))).toEqual({
			mcpServers: {
				roundtable: {
					type: "stdio",
					command: "/opt/rt/bin/roundtable",
					args: ["mcp", "stdio", "--root", "/workspace"],
					env: {
						ROUNDTABLE_SESSION_SOCKET: `\${ROUNDTABLE_SESSION_SOCKET}`,
						ROUNDTABLE_CAPABILITY: `\${ROUNDTABLE_CAPABILITY}`,
					},
				},
			},
		});
		const outside = clientCommand("claude", "claude", launch(false));
		expect(outside.argv).toContain("--allowedTools");
		expect(outside.argv).not.toContain("bypassPermissions");
		expect(outside.env.IS_SANDBOX).toBeUndefined();
	});

	test("gemini: a system settings file with the server trusted and its traffic off; yolo only inside ours", () => {
		const l = launch(true, "Do T-1.");
		const inside = clientCommand("gemini", "gemini", l);
		expect(inside.argv).toEqual(["gemini", "--approval-mode", "yolo", "--prompt-interactive", "Do T-1."]);
		expect(inside.env).toEqual({ GEMINI_CLI_SYSTEM_SETTINGS_PATH: "/session/gemini-settings.json" });
		const settings = JSON.parse(readFileSync(join(l.dir, "gemini-settings.json"), "utf8"));
		expect(settings.mcpServers.roundtable).toMatchObject({ command: "/opt/rt/bin/roundtable", trust: true });
		expect(settings).toMatchObject({
			privacy: { usageStatisticsEnabled: false },
			telemetry: { enabled: false },
			general: { disableAutoUpdate: true },
		});
		expect(clientCommand("gemini", "gemini", launch(false)).argv).toEqual(["gemini"]);
		// Headless, it answers the prompt and exits: --prompt, not --prompt-interactive.
		const oneShot = clientCommand("gemini", "gemini --output-format stream-json", {
			...launch(true, "Do T-1."),
			headless: true,
		});
		expect(oneShot.argv).toEqual([
			"gemini",
			"--output-format",
			"stream-json",
			"--approval-mode",
			"yolo",
			"--prompt",
			"Do T-1.",
		]);
	});

	test("any other CLI: its command, the prompt last, nothing written", () => {
		expect(clientCommand("opencode", "  opencode   run ", launch(true, "hi"))).toEqual({
			argv: ["opencode", "run", "hi"],
			env: {},
			files: [],
		});
	});
});
