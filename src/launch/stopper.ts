// How a stop reaches a launched session's agent. The launcher listens for stop signals from the
// moment its session exists, so one that comes while the session is set up is never this process's
// death (which would leave the session open and its workspace behind): before an agent runs it means
// do not start one; while one runs it goes to the agent itself (bubblewrap passes no signal on; the
// forwarder inside relays it), or to bubblewrap while the agent cannot be told apart yet.

/** How long a stopped agent has to finish before it is killed. */
export const STOP_GRACE_MS = 10_000;

interface Running {
	child: { kill(signal: NodeJS.Signals): void };
	agent: () => number | undefined;
	killLater?: ReturnType<typeof setTimeout>;
	/** Roundtable's own stop of this attempt: session.stop, or the wall time. */
	ended?: "stop" | "wall time";
}

export class Stopper {
	/** A stop asked for (a signal, or session.stop): no agent starts after it. */
	requested: NodeJS.Signals | "stop" | undefined;
	private running: Running | undefined;

	/** A stop signal to this process: to the agent running, and no agent starts after it. */
	signal(signal: NodeJS.Signals): void {
		this.requested ??= signal;
		this.forward(signal);
	}

	/**
	 * A signal to the agent running, if one is. While the agent cannot be told apart from its
	 * sandbox yet (bubblewrap's status not read), it is asked again every 50 ms for 2 s before the
	 * signal goes to bubblewrap, which would end the agent unasked.
	 */
	private forward(signal: NodeJS.Signals, tries = 40): void {
		const r = this.running;
		if (!r) return;
		const agent = r.agent();
		if (agent !== undefined) process.kill(agent, signal);
		else if (tries > 0) setTimeout(() => this.running === r && this.forward(signal, tries - 1), 50);
		else r.child.kill(signal);
	}

	/**
	 * Roundtable's own stop: SIGTERM to the agent, which may finish, and SIGKILL to its sandbox 10 s
	 * later. "stop" also keeps any later attempt from starting; "wall time" ends this attempt only.
	 */
	end(why: "stop" | "wall time"): void {
		if (why === "stop") this.requested ??= "stop";
		const r = this.running;
		if (!r || r.ended) return;
		r.ended = why;
		this.forward("SIGTERM");
		r.killLater = setTimeout(() => r.child.kill("SIGKILL"), STOP_GRACE_MS);
	}

	/** An agent runs now; `agent` tells its pid on the host once it can be told apart from its sandbox. */
	attach(child: Running["child"], agent: Running["agent"]): void {
		this.running = { child, agent };
	}

	/** Its agent exited: what ended it, if Roundtable did. */
	detach(): "stop" | "wall time" | undefined {
		const r = this.running;
		this.running = undefined;
		clearTimeout(r?.killLater);
		return r?.ended;
	}
}
