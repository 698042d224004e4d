// `mcp call`: one tool call. Beside a live owner it goes through the owner's legacy socket, which
// costs a connect instead of opening the project and loading the schemas (tens of milliseconds, not
// seconds); without one it runs in this process (direct mode, which also works beside an owner).
// --direct forces this process; --socket insists on the owner.
import { existsSync, readFileSync, realpathSync } from "node:fs";
import { findOwner } from "../owner/presence.ts";
import { callSocket, SocketUnreachable } from "../transports/socket-client.ts";
import { UsageError } from "./args.ts";
import type { CommandRun } from "./command.ts";

function readArgs(flags: Record<string, unknown>): unknown {
	const inline = flags.args as string | undefined;
	const file = flags["args-file"] as string | undefined;
	if (inline !== undefined && file !== undefined)
		throw new UsageError("give --args or --args-file, not both");
	let text: string;
	let source: string;
	if (file !== undefined) {
		source = `--args-file ${file}`;
		try {
			text = readFileSync(file === "-" ? 0 : file, "utf8");
		} catch (err) {
			throw new UsageError(`cannot read ${source}: ${(err as Error).message}`);
		}
	} else if (inline !== undefined) {
		source = "--args";
		text = inline;
	} else return {};
	try {
		return JSON.parse(text);
	} catch (err) {
		throw new UsageError(`${source} is not valid JSON: ${(err as Error).message}`);
	}
}

export type Outcome = { result: unknown } | { error: { code: string; message: string; details?: unknown } };

async function direct(root: string, tool: string, args: unknown): Promise<Outcome> {
	if (!existsSync(root)) {
		return {
			error: { code: "failed_precondition", message: `there is no directory ${root} to call ${tool} in` },
		};
	}
	// Loaded here: the socket path must not pay for the store and the schemas.
	const [{ call }, { asToolError }, { withRuntime }] = await Promise.all([
		import("../dispatch.ts"),
		import("../errors.ts"),
		import("./runtime.ts"),
	]);
	try {
		return { result: await withRuntime(root, (rt, ctx) => call(rt, tool, args, ctx)) };
	} catch (err) {
		const error = asToolError(err).toJSON();
		// A project that cannot be opened is a precondition, not a bug.
		if (err instanceof Error && err.name === "ConfigError")
			Object.assign(error, { code: "failed_precondition", message: err.message });
		return { error };
	}
}

/** One call through an owner's socket. */
export async function viaSocket(path: string, tool: string, args: unknown): Promise<Outcome> {
	const reply = await callSocket(path, tool, args);
	if (reply.ok) return { result: reply.result };
	return {
		error: {
			code: reply.code ?? "internal",
			message: reply.error ?? "the call failed",
			...(reply.details !== undefined && { details: reply.details }),
		},
	};
}

const ownerGone = (err: unknown): Outcome => ({
	error: {
		code: "failed_precondition",
		message: `${(err as Error).message}; is \`roundtable start\` running?`,
	},
});

/** Through the live owner when there is one, else in this process. */
async function relayOrDirect(root: string, tool: string, args: unknown): Promise<Outcome> {
	const path = findOwner(root)?.socket_path;
	if (path) {
		try {
			return await viaSocket(path, tool, args);
		} catch (err) {
			// Only when nothing was sent: a lost reply must not become a second call.
			if (!(err instanceof SocketUnreachable)) return ownerGone(err);
		}
	}
	return direct(root, tool, args);
}

/** Through the owner, or fail: --socket. */
async function ownerOnly(root: string, tool: string, args: unknown): Promise<Outcome> {
	// The config is read (with the YAML parser) only when owner.json does not say where the owner is.
	const path =
		findOwner(root)?.socket_path ??
		(await import("../config/peek.ts")).peekEndpoints(realpathSync(root)).socketPath;
	try {
		return await viaSocket(path, tool, args);
	} catch (err) {
		return ownerGone(err);
	}
}

/** Whether the call failed; its error then printed as `{"error":{code,message,details}}` on stderr. */
export function failed(outcome: Outcome): boolean {
	if ("result" in outcome) return false;
	process.stderr.write(`${JSON.stringify({ error: outcome.error })}\n`);
	return true;
}

export const callTool: CommandRun = {
	async run(flags) {
		const tool = flags.tool as string | undefined;
		if (tool === undefined) throw new UsageError("--tool is required");
		if (flags.socket && flags.direct) throw new UsageError("give --socket or --direct, not both");
		const args = readArgs(flags);
		const how = flags.direct ? direct : flags.socket ? ownerOnly : relayOrDirect;
		const outcome = await how(flags.root, tool, args);
		if (failed(outcome)) return 1;
		process.stdout.write(`${JSON.stringify((outcome as { result: unknown }).result, null, 2)}\n`);
		return 0;
	},
};
