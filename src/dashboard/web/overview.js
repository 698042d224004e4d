// The overview: counts that link to their views, runs and their convergence, what waits for the
// operator (approvals, questions to the operator, suspended and expiring claims), the turn queue and
// the agents.
import { h, idLink, pill, section, table, time } from "./dom.js";
import { byNewest, count, OPEN_PROPOSAL, OPEN_WORK, who } from "./parts.js";

// ---- overview -----------------------------------------------------------------------------------

function stat(label, value, href, tone) {
	return h(
		"a",
		{ class: `stat-card${tone && value > 0 ? ` tone-${tone}` : ""}`, href },
		h("strong", { text: value }),
		h("span", { text: label }),
	);
}

/** The start of a Markdown source as one plain line (for a link's text; never rendered). */
const excerpt = (md, n) => {
	const line = String(md ?? "")
		.replace(/[*_`#>[\]]/g, "")
		.replace(/\s+/g, " ")
		.trim();
	return line.length > n ? `${line.slice(0, n - 1)}…` : line;
};

export function overview(app) {
	const s = app.state;
	const waiting = s.approvals.filter((a) => a.status === "requested");
	const expiring = s.claims.filter((c) => c.expiring_soon && c.status === "active");
	const suspended = s.claims.filter((c) => c.status === "suspended");
	const toOperator = s.questions.filter((q) => q.assignee_id === "operator");
	const attention = [
		...waiting.map((a) =>
			h(
				"li",
				{},
				pill("approval", "warn"),
				" ",
				h("a", { href: "#/approvals", text: a.subject }),
				" ",
				idLink(a.proposal_id, "proposals"),
			),
		),
		...toOperator.map((q) =>
			h(
				"li",
				{},
				pill("question", "warn"),
				" ",
				who(q.requester_id),
				" asks: ",
				h("a", { href: "#/messages", title: q.id, text: excerpt(q.question_md, 90) }),
			),
		),
		// Work the Architect proposed: nothing starts on it until the operator opens it.
		...(s.tasks.some((t) => t.status === "proposed")
			? [
					h(
						"li",
						{},
						pill("proposed"),
						" ",
						h("a", {
							href: "#/tasks",
							text: `${s.tasks.filter((t) => t.status === "proposed").length} proposed task(s) to open or cancel`,
						}),
					),
				]
			: []),
		// What the autopilot cannot do on its own: a bound reached, a quorum no pool can meet.
		...s.runs
			.filter((r) => r.status === "active" && r.autopilot_note)
			.map((r) =>
				h(
					"li",
					{},
					pill(r.autopilot === "paused" ? "paused" : "autopilot", "warn"),
					" ",
					idLink(r.id),
					" ",
					r.autopilot_note,
				),
			),
		...suspended.map((c) =>
			h(
				"li",
				{},
				pill("suspended"),
				" ",
				h("a", { href: "#/claims", text: c.path ?? c.resource_id }),
				" held by ",
				who(c.agent_id),
			),
		),
		...expiring.map((c) =>
			h(
				"li",
				{},
				pill("expiring", "warn"),
				" ",
				h("a", { href: "#/claims", text: c.path ?? c.resource_id }),
				" held by ",
				who(c.agent_id),
			),
		),
	];
	return h(
		"div",
		{ class: "view" },
		h(
			"div",
			{ class: "stats" },
			stat(
				"active runs",
				count(s.runs, (r) => r.status === "active"),
				"#/",
			),
			stat(
				"open tasks",
				count(s.tasks, (t) => OPEN_WORK.has(t.status)),
				"#/tasks",
			),
			stat(
				"proposals in review",
				count(s.proposals, (p) => OPEN_PROPOSAL.has(p.status)),
				"#/proposals",
			),
			stat("awaiting approval", waiting.length, "#/approvals", "warn"),
			stat("open questions", s.questions.length, "#/messages"),
			stat(
				"live claims",
				count(s.claims, (c) => c.status === "active" || c.status === "suspended"),
				"#/claims",
			),
		),
		section(
			"Runs and convergence",
			table(
				[
					["Run", (r) => idLink(r.id)],
					["Goal", (r) => r.goal, "wide"],
					["Status", (r) => pill(r.status)],
					["Ticks", (r) => r.ticks, "num"],
					["Last tick", (r) => time(r.last_tick_at)],
					["Convergence", (r) => r.convergence ?? h("span", { class: "muted", text: "not checked yet" })],
					[
						"Autopilot",
						(r) =>
							r.autopilot === "off"
								? h("span", { class: "muted", text: "off" })
								: [
										pill(
											r.autopilot === "paused" ? "paused" : "on",
											r.autopilot === "paused" ? "warn" : "ok",
										),
									],
					],
					// What its sessions came to: live now, and those that failed or were given up.
					[
						"Sessions",
						(r) =>
							r.sessions_started === 0
								? h("span", { class: "muted", text: "none" })
								: [
										`${r.sessions_started} (${r.sessions_live} live)`,
										...(r.sessions_failed > 0 ? [" ", pill(`${r.sessions_failed} failed`, "warn")] : []),
										...(r.sessions_given_up > 0 ? [" ", pill(`${r.sessions_given_up} given up`, "bad")] : []),
									],
					],
				],
				[...s.runs].sort(byNewest),
				{
					empty: ["No runs. ", h("code", { text: "roundtable run --goal …" }), " opens one."],
					label: "Runs",
				},
			),
			{ count: s.runs.length, id: "runs" },
		),
		h(
			"div",
			{ class: "columns" },
			section(
				"Needs you",
				attention.length > 0
					? h("ul", { class: "attention" }, attention)
					: h("p", { class: "empty", text: "Nothing is waiting for the operator." }),
				{ count: attention.length, id: "attention" },
			),
			section(
				"Turn queue",
				table(
					[
						["Request", (t) => h("span", { class: "id", text: `#${t.request_event_id}` }), "num"],
						["Run", (t) => idLink(t.run_id)],
						["Agent", (t) => who(t.agent_id)],
						["Status", (t) => pill(t.status)],
						["Lease until", (t) => time(t.lease_expires_at)],
					],
					[...s.turns].sort((a, b) => a.request_event_id - b.request_event_id),
					{ empty: "No turns queued.", label: "Turn queue" },
				),
				{ count: s.turns.length, id: "turns" },
			),
			section(
				"Agents",
				table(
					[
						["Agent", (a) => h("span", { class: "who", text: a.id })],
						["Role", (a) => a.role],
						["State", (a) => pill(a.enabled ? "enabled" : "disabled")],
						["Status", (a) => a.status],
						[
							"Adapter",
							(a) => h("span", { class: "muted", text: [a.adapter, a.model].filter(Boolean).join(" · ") }),
						],
					],
					s.agents,
					{ empty: "No agents configured.", label: "Agents" },
				),
				{ count: s.agents.length, id: "agents" },
			),
		),
	);
}
