// The default policy, written by `init` into POLICIES.ROUNDTABLE.md as fenced yaml blocks. The
// policy engine (src/policy/) merges a project's blocks over these same values, so the file `init`
// writes and the engine's defaults cannot drift apart.
import { stringify } from "yaml";
import type { PolicyOverrides } from "./types.ts";

export const DEFAULT_POLICY = {
	consensus: {
		// Tests are required where a change is risky to get wrong (dependencies, migrations), not for
		// every proposal: plenty of proposals (docs, prose) have nothing to run.
		default: {
			approvals_required: 2,
			blockers_allowed: 0,
			required_roles: [] as string[],
			tests_required: false,
		},
		architecture: {
			approvals_required: 2,
			blockers_allowed: 0,
			required_roles: ["Architect", "Reviewer"],
		},
		security: {
			required_roles: ["Security"],
			security_veto_blocks: true,
			human_approval_required: true,
		},
		dependency_change: {
			required_roles: ["Security", "Tester"],
			human_approval_required: true,
			tests_required: true,
		},
		destructive_command: {
			human_approval_required: true,
			security_approval_required: true,
		},
		migration: {
			required_roles: ["Architect", "Security", "Tester"],
			human_approval_required: true,
			rollback_plan_required: true,
			tests_required: true,
		},
	},
	risk: {
		high_paths: [
			".env*",
			"**/.env*",
			"auth/**",
			"security/**",
			"infra/**",
			"migrations/**",
			"package.json",
			"package-lock.json",
			"pnpm-lock.yaml",
			"yarn.lock",
			"bun.lock",
			"go.mod",
			"go.sum",
			"Dockerfile",
			"docker-compose*.yml",
			".github/workflows/**",
		],
	},
	commands: {
		dangerous: [
			"rm",
			"chmod",
			"chown",
			"mv",
			"git reset",
			"git clean",
			"git push",
			"docker system prune",
			"kubectl",
			"terraform apply",
			"npm install",
			"pnpm add",
			"yarn add",
			"go get",
			"pip install",
		],
	},
	architecture: { min_files: 10, min_top_level_dirs: 3 },
} satisfies PolicyOverrides;

const block = (value: object) => ["```yaml", stringify(value).trimEnd(), "```"].join("\n");

export function policyMarkdown(): string {
	return `# Roundtable policies

How proposals are governed in this project. Roundtable reads the fenced \`yaml\` blocks below and
merges them into its policy; the prose is for people. Edit freely: the owner reloads this file when
it changes, and keeps the previous policy (with a log line saying why) if an edit does not parse.

## Consensus

Each profile sets how many approving votes a proposal needs, how many blocking votes it may carry,
which roles must take part, and which gates apply. \`default\` applies to every proposal; the
others are added when a proposal's risk or touched paths call for them. An author's own vote never
counts toward its quorum, and a human approval satisfies the human gate only.

A profile written here changes only the fields it sets; lists replace lists. Profiles apply when:
\`architecture\`, the change is large (see below); \`security\`, the risk is high or critical or a
high-risk path is touched; \`dependency_change\`, a manifest or lockfile is touched;
\`migration\`, a file under a \`migrations/\` directory is touched; \`destructive_command\`, an
added line runs a dangerous command. When several apply, the strictest setting wins: the most
approvals, the fewest blockers, every required role, every gate.

${block({ consensus: DEFAULT_POLICY.consensus })}

## Architecture

A change is architectural when it touches at least \`min_files\` files, or files in at least
\`min_top_level_dirs\` top-level directories.

${block({ architecture: DEFAULT_POLICY.architecture })}

## Risk

Paths (picomatch globs) whose changes make a proposal high-risk: they bring the security profile,
a security review and a human approval. A pattern without a \`/\` matches the file name at any
depth, as in \`.gitignore\` (\`Dockerfile\` matches \`services/api/Dockerfile\`).

${block({ risk: DEFAULT_POLICY.risk })}

## Commands

Commands that bring the destructive_command profile when an added line runs one. They match whole
words (\`rm\` matches \`rm -rf build\`, not \`form\`), and the words of a multi-word command may be
separated by any whitespace.

${block({ commands: DEFAULT_POLICY.commands })}

## Security veto

A security reviewer vetoes a change that leaks secrets (logging tokens, keys or passwords),
weakens authentication, or runs destructive commands. Only a human approval with
\`override_policy\` can overrule a security review's veto, or a vote's veto where a detected
profile sets \`security_veto_blocks\`; elsewhere a vote's veto blocks until the vote changes.

## Claims

Claim before you propose: a write claim on a file or symbol, a directory claim for creates,
deletes and renames. Claims expire; renew long work with \`resource.renew\`. A claim whose file
changed underneath it is suspended and must be re-claimed.
`;
}
