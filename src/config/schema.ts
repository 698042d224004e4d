// The shape config.yaml may take. Every key is optional (defaults fill the rest) and unknown keys
// are rejected; the loader reports unknown keys itself first, with a did-you-mean.

import { nonBlank, nonNegativeInt, positiveInt } from "../domain/scalars.ts";
import { type } from "../vocabulary/arktype.ts";

const role = type({ "+": "reject", "role?": nonBlank, "adapter?": nonBlank, "model?": nonBlank });

const pool = type({
	"+": "reject",
	"count?": type("0 <= number.integer <= 256").describe("an integer from 0 to 256"),
	"adapter?": nonBlank,
	"model?": nonBlank,
});

const adapter = type({
	"+": "reject",
	"command?": "string",
	"headless?": "string",
	"headless_resume?": "string",
	"supports_resume?": "boolean",
	"resume_pattern?": "string",
	"supports_mcp?": "boolean",
	"supports_readonly_workspace?": "boolean",
	"captures_session_id?": "boolean",
	"env?": nonBlank.array(),
	"egress?": nonBlank.array(),
});

export const configFileSchema = type({
	"+": "reject",
	"version?": type("1").describe("1"),
	"project_name?": nonBlank,
	"storage?": { "+": "reject", "sqlite_path?": nonBlank, "wal?": "boolean" },
	"mcp?": {
		"+": "reject",
		"transport?": nonBlank,
		"socket_path?": nonBlank,
		"http_address?": nonBlank,
		"tls_cert_file?": "string",
		"tls_key_file?": "string",
		"loopback_auth?": "'token' | 'none'",
	},
	"agents?": {
		"+": "reject",
		"chair?": role,
		"architect?": role,
		"tester?": role,
		"security?": role,
		"memory_oracle?": role,
		"implementers?": pool,
		"reviewers?": pool,
	},
	"adapters?": { "[string]": adapter },
	"chair?": {
		"+": "reject",
		"autopilot?": "boolean",
		"max_sessions?": type("1 <= number.integer <= 64").describe("an integer from 1 to 64"),
	},
	"run?": {
		"+": "reject",
		"max_sessions_total?": type("1 <= number.integer <= 10000").describe("an integer from 1 to 10000"),
		"max_wall_seconds?": positiveInt,
	},
	"turns?": { "+": "reject", "lease_seconds?": positiveInt },
	"claims?": { "+": "reject", "default_ttl_seconds?": positiveInt },
	"sessions?": {
		"+": "reject",
		"capability_ttl_seconds?": positiveInt,
		"sandbox?": "'auto' | 'required' | 'off'",
		"log_bytes?": positiveInt,
		"max_wall_seconds?": positiveInt,
		"max_attempts?": type("1 <= number.integer <= 10").describe("an integer from 1 to 10"),
		"retry_backoff_ms?": type("0 <= number.integer <= 3600000").describe("milliseconds from 0 to 3600000"),
	},
	"tests?": {
		"+": "reject",
		"allowed_commands?": nonBlank.array(),
		"timeout_seconds?": positiveInt,
		"max_output_bytes?": positiveInt,
		"env_allowlist?": nonBlank.array(),
		"sandbox?": "'auto' | 'required' | 'off'",
		"network?": "boolean",
		"support_paths?": nonBlank.array(),
	},
	"sandbox?": { "+": "reject", "expose?": nonBlank.array() },
	"workspaces?": {
		"+": "reject",
		"exclude?": nonBlank.array(),
		"keep?": "'never' | 'on_changes' | 'always'",
	},
	"limits?": {
		"+": "reject",
		"max_frame_bytes?": positiveInt,
		"read_deadline_seconds?": positiveInt,
		"write_deadline_seconds?": positiveInt,
		"max_connections?": positiveInt,
		"max_http_connections?": positiveInt,
		"max_patch_bytes?": positiveInt,
		"max_revisions_per_proposal?": positiveInt,
		"max_open_proposals_per_task?": positiveInt,
	},
	"idempotency?": { "+": "reject", "ttl_hours?": nonNegativeInt },
});
