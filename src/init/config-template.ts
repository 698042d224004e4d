// The config.yaml that `init` writes: every default spelled out, with a word on each section.
// A test checks that it parses to exactly the built-in defaults.

export const CONFIG_TEMPLATE = `# Roundtable configuration. Every key is optional; a missing key takes the value shown here.
# Unknown keys are errors. Secrets never go in this file: the operator's HTTP bearer token is in
# .roundtable/operator.token (or the ROUNDTABLE_MCP_TOKEN environment variable).
version: 1
project_name: Roundtable

storage:
  sqlite_path: .roundtable/roundtable.db
  wal: true

mcp:
  transport: unix
  socket_path: .roundtable/mcp/roundtable.sock
  # Streamable HTTP at http://<http_address>/mcp. A non-loopback address needs TLS and a token.
  http_address: 127.0.0.1:7117
  tls_cert_file: ""
  tls_key_file: ""
  # token: a loopback request needs a bearer (the operator's token, or an agent's capability);
  # none: one without is the operator (anyone on this machine who can reach the port).
  loopback_auth: token

# One agent per fixed role, plus pools of implementers and reviewers (implementer-1..N).
agents:
  chair: { role: Chair, adapter: claude, model: default }
  architect: { role: Architect, adapter: claude, model: default }
  tester: { role: Tester, adapter: codex, model: default }
  security: { role: Security, adapter: claude, model: default }
  memory_oracle: { role: MemoryOracle, adapter: claude, model: default }
  implementers: { count: 2, adapter: codex, model: default }
  reviewers: { count: 1, adapter: gemini, model: default }

# How each agent CLI is started and resumed: command at a terminal, headless without one (a
# script, CI), given the prompt and run to its end. New adapter names are allowed (a CLI that needs
# more than a command line gets a module in src/adapters/). In its sandbox an agent
# gets, of your environment, PATH, HOME, LANG, LC_ALL, TZ, TERM, CI, tests.env_allowlist and its
# adapter's env (a trailing * matches a prefix); it reaches only the egress hosts (host, *.domain,
# host:port; port 443 unless named), through a proxy that records every refusal as an event.
adapters:
  codex:
    command: codex
    headless: codex exec --skip-git-repo-check --json
    headless_resume: codex exec resume --skip-git-repo-check --json {{external_session_id}}
    supports_resume: true
    resume_pattern: codex resume {{external_session_id}}
    supports_mcp: true
    supports_readonly_workspace: true
    captures_session_id: true
    env: [OPENAI_API_KEY, CODEX_*]
    egress: [api.openai.com, chatgpt.com, auth.openai.com]
  claude:
    command: claude
    headless: claude -p --output-format stream-json --verbose
    headless_resume: claude -p --output-format stream-json --verbose --resume {{external_session_id}}
    supports_resume: true
    resume_pattern: claude --resume {{external_session_id}}
    supports_mcp: true
    supports_readonly_workspace: true
    captures_session_id: true
    env: [ANTHROPIC_*, CLAUDE_*]
    egress: [api.anthropic.com, console.anthropic.com, claude.ai]
  gemini:
    command: gemini
    headless: gemini --output-format stream-json
    headless_resume: gemini --output-format stream-json --resume {{external_session_id}}
    supports_resume: true
    resume_pattern: gemini resume {{external_session_id}}
    supports_mcp: true
    supports_readonly_workspace: true
    captures_session_id: true
    env: [GEMINI_*, GOOGLE_*]
    egress: [generativelanguage.googleapis.com, cloudcode-pa.googleapis.com, oauth2.googleapis.com]
  opencode:
    command: opencode
    headless: ""
    headless_resume: ""
    supports_resume: false
    resume_pattern: ""
    supports_mcp: true
    supports_readonly_workspace: true
    captures_session_id: false
    env: []
    egress: []
  generic:
    command: sh
    headless: ""
    headless_resume: ""
    supports_resume: false
    resume_pattern: ""
    supports_mcp: false
    supports_readonly_workspace: true
    captures_session_id: false
    env: []
    egress: []

# The Chair's autopilot: it starts headless sessions as a run needs them (an implementer for each
# open task, reviewers up to the policy's quorum for each proposal in review, the Architect for a
# goal with no tasks yet), each a recorded decision. Every run with autopilot: true; otherwise the
# runs started with \`roundtable run --autopilot\`. At most max_sessions live at once.
chair:
  autopilot: false
  max_sessions: 4

# An autopilot run stops launching (and says why) after max_sessions_total sessions in all, or
# max_wall_seconds after it began.
run:
  max_sessions_total: 40
  max_wall_seconds: 7200

# A scheduled turn not started, or started and not completed, within the lease expires.
turns:
  lease_seconds: 600

claims:
  default_ttl_seconds: 900

# A capability (an agent's bearer token, from \`roundtable sessions mint\`) works this long; never renewed.
sessions:
  capability_ttl_seconds: 28800
  # \`roundtable sessions launch\` runs the agent in bubblewrap (Linux), which shows it only the
  # system, its tools, an empty workspace and a private home with a copy of its login: it reads the
  # project through the repository tools. auto: where bwrap works; required: refuse without; off.
  sandbox: auto
  # Without a terminal, what the agent writes is kept in .roundtable/transcripts/ (roundtable
  # sessions log ID), at most this many bytes, the newest.
  log_bytes: 4194304
  # Without a terminal, a session ends at its agent's exit or after this long: SIGTERM to the agent,
  # SIGKILL 10 s later; the launch then exits 124.
  max_wall_seconds: 1800
  # A headless session whose agent fails (a non-zero exit, the wall time) is started again in the
  # same workspace, resuming its CLI's conversation (headless_resume), up to max_attempts in all,
  # after retry_backoff_ms, doubled for each retry after the first.
  max_attempts: 2
  retry_backoff_ms: 5000

# What every sandbox (test runs, launched agents) shows beyond the system, the command's own tools
# and its directory: toolchain folders it needs, read-only (a pyenv, an nvm node, a Go module cache).
sandbox:
  expose: []

# A launched agent bound to a task edits a copy of what the task may read (its workspace);
# workspace.propose makes what it changed a proposal. These globs are never proposed (scratch
# files), beside the project's own ignore files.
workspaces:
  exclude: []
  # When a session closes, what its workspace held that no proposal carries: kept as a draft
  # (on_changes), the workspace folder kept too (always), or nothing (never).
  keep: on_changes

# test.run runs only commands that begin with one of these argv prefixes (no shell).
tests:
  allowed_commands:
    - npm test
    - npm run test
    - pnpm test
    - yarn test
    - bun test
    - bun run test
    - vitest run
    - node_modules/.bin/vitest run
    - go test
    - cargo test
    - pytest
    - python -m pytest
    - python3 -m pytest
    - make test
  timeout_seconds: 600
  max_output_bytes: 4194304
  env_allowlist: [PATH, HOME, LANG, LC_ALL, TERM, TMPDIR, TZ, CI]
  # Linux: each run in bubblewrap, on a scratch copy of the project (the one place it writes), with
  # the system, its tools, sandbox.expose, private /tmp and $HOME and nothing else of this machine.
  # auto: where bwrap works, else unsandboxed; required: refuse a run without it; off.
  sandbox: auto
  network: false
  # An agent's test run copies only what it may read, plus these (globs): manifests, lockfiles, helpers.
  support_paths:
    - package.json
    - "**/package.json"
    - "*.lock"
    - "*.lockb"
    - package-lock.json
    - pnpm-lock.yaml
    - tsconfig*.json
    - bunfig.toml
    - go.mod
    - go.sum
    - Cargo.toml
    - Cargo.lock
    - pyproject.toml
    - setup.cfg
    - requirements*.txt
    - conftest.py
    - Makefile

limits:
  max_frame_bytes: 16777216
  read_deadline_seconds: 30
  write_deadline_seconds: 30
  max_connections: 256
  max_http_connections: 512
  # A proposal's patch, its revisions, and the open proposals of one task are bounded.
  max_patch_bytes: 2097152
  max_revisions_per_proposal: 50
  max_open_proposals_per_task: 20

idempotency:
  ttl_hours: 24
`;
