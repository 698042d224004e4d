// Built-in configuration. A key missing from config.yaml takes its value from here, and the set of
// keys here is the set of valid keys (adapters excepted: new adapter names are allowed).
import { LAYOUT } from "../layout.ts";

export interface RoleConfig {
	role: string;
	adapter: string;
	model: string;
}

export interface PoolConfig {
	count: number;
	adapter: string;
	model: string;
}

export interface AdapterConfig {
	command: string;
	/**
	 * The CLI without a terminal (sessions launched by a script, the owner or CI): its one-shot form,
	 * given the prompt and run to its end. Empty: the command, as at a terminal.
	 */
	headless: string;
	/**
	 * The headless form that resumes the CLI's conversation `{{external_session_id}}` (captured from
	 * its output): what a retried headless session runs. Empty: a retry starts afresh.
	 */
	headless_resume: string;
	supports_resume: boolean;
	resume_pattern: string;
	supports_mcp: boolean;
	supports_readonly_workspace: boolean;
	captures_session_id: boolean;
	/** Variables of the operator's environment the agent gets (a trailing `*` matches a prefix). */
	env: string[];
	/** Hosts the agent may reach through the sandbox's proxy (`host`, `*.domain` or `host:port`). */
	egress: string[];
}

export interface Config {
	version: 1;
	project_name: string;
	storage: { sqlite_path: string; wal: boolean };
	mcp: {
		transport: string;
		socket_path: string;
		http_address: string;
		tls_cert_file: string;
		tls_key_file: string;
		/**
		 * A loopback HTTP request without a credential: refused (token: the operator presents
		 * .roundtable/operator.token) or the operator (none).
		 */
		loopback_auth: "token" | "none";
	};
	agents: {
		chair: RoleConfig;
		architect: RoleConfig;
		tester: RoleConfig;
		security: RoleConfig;
		memory_oracle: RoleConfig;
		implementers: PoolConfig;
		reviewers: PoolConfig;
	};
	adapters: Record<string, AdapterConfig>;
	/**
	 * The Chair's autopilot: it starts headless sessions as each run needs them (every run when
	 * `autopilot`; otherwise runs opened with --autopilot), at most `max_sessions` live at once.
	 */
	chair: { autopilot: boolean; max_sessions: number };
	/** An autopilot run stops launching after this many sessions in all, or this long after it began. */
	run: { max_sessions_total: number; max_wall_seconds: number };
	turns: { lease_seconds: number };
	claims: { default_ttl_seconds: number };
	/** How long a minted capability authenticates (never renewed). */
	sessions: {
		capability_ttl_seconds: number;
		/** A launched agent in bubblewrap: where it works (auto), always (required), never (off). */
		sandbox: "auto" | "required" | "off";
		/** A headless session's transcript keeps at most this many bytes (the newest). */
		log_bytes: number;
		/** A headless session ends at its agent's exit or after this long (SIGTERM, SIGKILL 10 s later). */
		max_wall_seconds: number;
		/** A headless session whose agent fails is started again, up to this many times in all. */
		max_attempts: number;
		/** The wait before the first retry; it doubles with each one after. */
		retry_backoff_ms: number;
	};
	/** What every sandbox shows beyond its allowlist: toolchain folders, read-only. */
	sandbox: { expose: string[] };
	workspaces: {
		/** Paths (globs) in an agent's workspace never proposed, beside the project's ignore files. */
		exclude: string[];
		/**
		 * When a session closes: `on_changes` keeps what its workspace held that no proposal carries as
		 * a draft; `always` keeps the workspace folder too; `never` keeps nothing.
		 */
		keep: "never" | "on_changes" | "always";
	};
	tests: {
		allowed_commands: string[];
		timeout_seconds: number;
		max_output_bytes: number;
		env_allowlist: string[];
		/** bubblewrap around each run: where it works (auto), always (required), never (off). */
		sandbox: "auto" | "required" | "off";
		/** Whether a sandboxed run may use the network. */
		network: boolean;
		/**
		 * Paths a capability caller's test run gets beside what it may read (manifests, lockfiles,
		 * test helpers): picomatch globs, relative to the project.
		 */
		support_paths: string[];
	};
	limits: {
		max_frame_bytes: number;
		read_deadline_seconds: number;
		write_deadline_seconds: number;
		max_connections: number;
		max_http_connections: number;
		/** The largest patch a proposal revision may carry. */
		max_patch_bytes: number;
		/** How many patch revisions one proposal may have. */
		max_revisions_per_proposal: number;
		/** How many proposals of one task may be open (pending or in review) at once. */
		max_open_proposals_per_task: number;
	};
	idempotency: { ttl_hours: number };
}

const adapter = (
	command: string,
	resumePattern: string,
	env: string[] = [],
	egress: string[] = [],
	headless = "",
	headlessResume = "",
): AdapterConfig => ({
	command,
	headless,
	headless_resume: headlessResume,
	supports_resume: resumePattern !== "",
	resume_pattern: resumePattern,
	supports_mcp: command !== "sh",
	supports_readonly_workspace: true,
	captures_session_id: resumePattern !== "",
	env,
	egress,
});

/** A fresh copy each call, so callers may merge into it. */
export function defaultConfig(): Config {
	return {
		version: 1,
		project_name: "Roundtable",
		storage: { sqlite_path: LAYOUT.database, wal: true },
		mcp: {
			transport: "unix",
			socket_path: LAYOUT.socket,
			http_address: "127.0.0.1:7117",
			tls_cert_file: "",
			tls_key_file: "",
			loopback_auth: "token",
		},
		agents: {
			chair: { role: "Chair", adapter: "claude", model: "default" },
			architect: { role: "Architect", adapter: "claude", model: "default" },
			tester: { role: "Tester", adapter: "codex", model: "default" },
			security: { role: "Security", adapter: "claude", model: "default" },
			memory_oracle: { role: "MemoryOracle", adapter: "claude", model: "default" },
			implementers: { count: 2, adapter: "codex", model: "default" },
			reviewers: { count: 1, adapter: "gemini", model: "default" },
		},
		adapters: {
			codex: adapter(
				"codex",
				"codex resume {{external_session_id}}",
				["OPENAI_API_KEY", "CODEX_*"],
				["api.openai.com", "chatgpt.com", "auth.openai.com"],
				"codex exec --skip-git-repo-check --json",
				"codex exec resume --skip-git-repo-check --json {{external_session_id}}",
			),
			claude: adapter(
				"claude",
				"claude --resume {{external_session_id}}",
				["ANTHROPIC_*", "CLAUDE_*"],
				["api.anthropic.com", "console.anthropic.com", "claude.ai"],
				"claude -p --output-format stream-json --verbose",
				"claude -p --output-format stream-json --verbose --resume {{external_session_id}}",
			),
			gemini: adapter(
				"gemini",
				"gemini resume {{external_session_id}}",
				["GEMINI_*", "GOOGLE_*"],
				["generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com", "oauth2.googleapis.com"],
				"gemini --output-format stream-json",
				"gemini --output-format stream-json --resume {{external_session_id}}",
			),
			opencode: adapter("opencode", ""),
			generic: adapter("sh", ""),
		},
		chair: { autopilot: false, max_sessions: 4 },
		run: { max_sessions_total: 40, max_wall_seconds: 7200 },
		turns: { lease_seconds: 600 },
		claims: { default_ttl_seconds: 900 },
		sessions: {
			capability_ttl_seconds: 28800,
			sandbox: "auto",
			log_bytes: 4 * 1024 * 1024,
			max_wall_seconds: 1800,
			max_attempts: 2,
			retry_backoff_ms: 5000,
		},
		tests: {
			allowed_commands: [
				"npm test",
				"npm run test",
				"pnpm test",
				"yarn test",
				"bun test",
				"bun run test",
				"vitest run",
				"node_modules/.bin/vitest run",
				"go test",
				"cargo test",
				"pytest",
				"python -m pytest",
				"python3 -m pytest",
				"make test",
			],
			timeout_seconds: 600,
			max_output_bytes: 4 * 1024 * 1024,
			env_allowlist: ["PATH", "HOME", "LANG", "LC_ALL", "TERM", "TMPDIR", "TZ", "CI"],
			sandbox: "auto",
			network: false,
			support_paths: [
				"package.json",
				"**/package.json",
				"*.lock",
				"*.lockb",
				"package-lock.json",
				"pnpm-lock.yaml",
				"tsconfig*.json",
				"bunfig.toml",
				"go.mod",
				"go.sum",
				"Cargo.toml",
				"Cargo.lock",
				"pyproject.toml",
				"setup.cfg",
				"requirements*.txt",
				"conftest.py",
				"Makefile",
			],
		},
		sandbox: { expose: [] },
		workspaces: { exclude: [], keep: "on_changes" },
		limits: {
			max_frame_bytes: 16 * 1024 * 1024,
			read_deadline_seconds: 30,
			write_deadline_seconds: 30,
			max_connections: 256,
			max_http_connections: 512,
			max_patch_bytes: 2 * 1024 * 1024,
			max_revisions_per_proposal: 50,
			max_open_proposals_per_task: 20,
		},
		idempotency: { ttl_hours: 24 },
	};
}

/** Fixed single-agent roles, in the order their agents are listed. */
export const FIXED_ROLES = ["chair", "architect", "tester", "security", "memory_oracle"] as const;
