// The default policy, written by `init` into POLICIES.ROUNDTABLE.md as fenced yaml blocks. The
// policy engine (its own issue) merges those blocks over these values.
import { stringify } from "yaml";

export const DEFAULT_POLICY = {
	consensus: {
		default: {
			approvals_required: 2,
			blockers_allowed: 0,
			required_roles: [] as string[],
			tests_required: true,
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
		},
		destructive_command: {
			human_approval_required: true,
			security_approval_required: true,
		},
		migration: {
			required_roles: ["Architect", "Security", "Tester"],
			human_approval_required: true,
			rollback_plan_required: true,
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
};

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

${block({ consensus: DEFAULT_POLICY.consensus })}

## Risk

Paths (picomatch globs) whose changes make a proposal high-risk: they bring the security profile,
a security review and a human approval.

${block({ risk: DEFAULT_POLICY.risk })}

## Commands

Command prefixes that a security review flags when a patch adds them.

${block({ commands: DEFAULT_POLICY.commands })}

## Security veto

A security reviewer vetoes a change that leaks secrets (logging tokens, keys or passwords),
weakens authentication, or runs destructive commands. Only a human approval with
\`override_policy\` can overrule a veto.

## Claims

Claim before you propose: a write claim on a file or symbol, a directory claim for creates,
deletes and renames. Claims expire; renew long work with \`resource.renew\`. A claim whose file
changed underneath it is suspended and must be re-claimed.
`;
}
