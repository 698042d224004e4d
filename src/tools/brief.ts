// agent.brief: what an agent needs to (re)start, in one call (engine: src/briefing/).
import type { Env } from "../engine/env.ts";
import { ToolError } from "../errors.ts";
import type { Args, Result } from "../registry/index.ts";

const todo = (tool: string): never => {
	throw new ToolError("internal", `${tool} is still being built`);
};

export const brief = async (_a: Args<"agent.brief">, _env: Env): Promise<Result<"agent.brief">> =>
	todo("agent.brief");
