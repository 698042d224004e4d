// agent.brief's front door: what an agent needs to (re)start, in one call, for the caller (or, for the
// operator, the agent it names). The briefing is built in build.ts; its next action in next-action.ts.
import type { Env } from "../handlers/env.ts";
import { actorOf } from "../peers/actor.ts";
import type { Args, Result } from "../registry/index.ts";
import { buildBriefing } from "./build.ts";

export const brief = (a: Args<"agent.brief">, env: Env): Promise<Result<"agent.brief">> =>
	buildBriefing(env, actorOf(env, a.agent_id));
