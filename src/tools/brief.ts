// agent.brief: what an agent needs to (re)start, in one call (engine: src/briefing/).
import { buildBriefing } from "../briefing/build.ts";
import type { Env } from "../engine/env.ts";
import { actorOf } from "../peers/actor.ts";
import type { Args, Result } from "../registry/index.ts";

export const brief = (a: Args<"agent.brief">, env: Env): Promise<Result<"agent.brief">> =>
	buildBriefing(env, actorOf(env, a.agent_id));
