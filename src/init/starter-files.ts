// The human-facing starter files `init` writes. Users edit them; `init` never overwrites an edit
// without --force.

export const AGENTS_MD = `# Working in this repository with Roundtable

Several agents share this repository through Roundtable. These rules keep them from stepping on
each other; \`.roundtable/mcp/AGENT_MCP_MANIFEST.md\` lists the tools.

## Start here

Call \`agent.brief\` first, and again whenever you come back: it gives your task, claims, proposals,
questions to and from you, unread messages and the required next action in one call.

## Authority

- Roundtable's table (tasks, claims, proposals, decisions, memory) is the shared truth. Read it
  with \`table.get_state\` and follow it with \`table.watch\`; do not rely on your own notes.
- The operator (a human) has the final word: approvals, overrides and agent settings are theirs.

## Where you change files

- Launched by Roundtable (\`roundtable sessions launch\` or \`start\`), you work in a workspace of
  your own: a copy of the files your task may read, with a git repository of its own. Edit them
  there with your own tools; \`workspace.diff\` shows what you changed.
- Anywhere else (a client opened by hand), the repository is read-only to you: read it with
  \`repo.read_file\`, \`repo.search\` and \`repo.symbols\`, and never edit files directly.
- Either way, every change reaches the project as a proposal, never by itself.

## Claim, then propose

1. Claim what you will change with \`resource.claim\` (a file, a directory, or a symbol).
2. Propose the change: \`workspace.propose\` from a workspace, else \`proposal.create\` with the
   patch, naming the claimed resources.
3. Wait for votes, reviews and tests; revise (propose again, or \`proposal.attach_patch\`) when
   asked.
4. Release claims you no longer need.

## Turns

When the Chair runs a turn queue, request a turn (\`agent.turn_request\`), wait for your
\`agent.turn_scheduled\` event, then \`agent.turn_start\` and, when done, \`agent.turn_complete\`.

## Closing out

Record what later agents should know with \`memory.record\`, record decisions with
\`decision.record\`, and update your task's status with \`task.update_status\`.
`;

export const PROJECT_MD = `# Project

Describe the product here for the agents: what it is, who it is for, and the invariants no change
may break. Agents read this file before they start.

## Invariants

- (for example) The public API stays backward compatible.
- (for example) Every change ships with tests.
`;

export const TASKS_README = `# Tasks

Tasks live in Roundtable's database: create them with \`task.create\` (or \`roundtable mcp call
--tool task.create\`) and list them with \`task.list\`. Notes and longer task briefs for people can
live in this folder.
`;

/** Runtime state the project must never commit. Config, policy and docs stay tracked. */
export const ROUNDTABLE_GITIGNORE = `# Roundtable runtime state (written by roundtable init)
roundtable.db
roundtable.db-wal
roundtable.db-shm
owner.lock
owner.json
repo.lock
init-state.json
operator.token
sessions/
transcripts/
agent-state/
mcp/
patches/
journal/
testlogs/
logs/
*.tmp
`;
