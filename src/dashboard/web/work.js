// The work in progress: tasks (filtered by status, each body shown on demand), claims (expiring
// soon, active, suspended) and the proposals list that leads to each proposal's detail.
import { postJson } from "./api.js";
import { h, idLink, markdown, pill, section, table, time } from "./dom.js";
import { byNewest, count, OPEN_PROPOSAL, OPEN_WORK, proposalStatus, toggle, who } from "./parts.js";

// ---- tasks --------------------------------------------------------------------------------------

export function tasks(app) {
	const s = app.state;
	const filter = app.ui.taskFilter;
	const statuses = [...new Set(s.tasks.map((t) => t.status))];
	const chips = ["all", "open work", ...statuses].map((name) =>
		h("button", {
			type: "button",
			class: "chip",
			"aria-pressed": filter === name ? "true" : "false",
			"data-key": `filter:${name}`,
			onclick: () => {
				app.ui.taskFilter = name;
				app.rerender();
			},
			text: `${name.replaceAll("_", " ")} ${name === "all" ? s.tasks.length : name === "open work" ? count(s.tasks, (t) => OPEN_WORK.has(t.status)) : count(s.tasks, (t) => t.status === name)}`,
		}),
	);
	const shown = s.tasks
		.filter(
			(t) => filter === "all" || (filter === "open work" ? OPEN_WORK.has(t.status) : t.status === filter),
		)
		.sort((a, b) => a.priority - b.priority || (a.created_at < b.created_at ? -1 : 1)); // the store's order
	// Each task's proposals, newest first: an applied one shows the task's work has landed.
	const byTask = new Map();
	for (const p of [...s.proposals].sort(byNewest))
		byTask.set(p.task_id, [...(byTask.get(p.task_id) ?? []), p]);
	return h(
		"div",
		{ class: "view" },
		section(
			"Tasks",
			[
				h("div", { class: "chips", role: "group", "aria-label": "Filter by status" }, chips),
				table(
					[
						["ID", (t) => idLink(t.id)],
						["Title", (t) => toggle(app, `task:${t.id}`, t.title), "wide"],
						["Status", (t) => pill(t.status)],
						[
							"Proposals",
							(t) =>
								(byTask.get(t.id) ?? []).map((p) =>
									h("span", { class: "task-proposal" }, idLink(p.id, "proposals"), " ", proposalStatus(p)),
								),
						],
						["Assignee", (t) => who(t.assigned_agent_id)],
						["Run", (t) => idLink(t.run_id)],
						["Risk", (t) => pill(t.risk, t.risk === "high" || t.risk === "critical" ? "bad" : "none")],
						["Prio", (t) => t.priority, "num"],
						["Updated", (t) => time(t.updated_at)],
						["", (t) => (t.status === "proposed" ? proposedActions(app, t) : null)],
					],
					shown,
					{
						empty: "No tasks match.",
						label: "Tasks",
						rowClass: (t) => `task-row task-${t.id}`,
						detail: (t) => (app.ui.open.has(`task:${t.id}`) ? markdown(t, "body_md", "md task-body") : null),
					},
				),
			],
			{ count: shown.length, id: "tasks" },
		),
	);
}

/** A task the Architect proposed: the operator opens it (the Chair then assigns and starts it) or cancels it. */
function proposedActions(app, t) {
	const decide = async (status) => {
		app.ui.busy = t.id;
		app.rerender();
		try {
			await postJson(`/api/tasks/${encodeURIComponent(t.id)}/status`, {
				status,
				expected_revision: t.revision,
				idempotency_key: crypto.randomUUID(),
			});
			delete app.ui.flash[t.id];
		} catch (err) {
			app.ui.flash[t.id] = { ok: false, text: `Refused — ${err.message}` };
		} finally {
			app.ui.busy = null;
			app.refresh();
		}
	};
	const busy = app.ui.busy === t.id;
	const refused = app.ui.flash[t.id];
	return h(
		"span",
		{ class: "actions" },
		refused ? h("span", { class: "flash flash-bad", role: "alert", text: refused.text }) : null,
		h("button", {
			type: "button",
			class: "btn",
			disabled: busy,
			"data-key": `open:${t.id}`,
			onclick: () => decide("open"),
			text: "Open",
		}),
		" ",
		h("button", {
			type: "button",
			class: "btn btn-quiet",
			disabled: busy,
			onclick: () => decide("cancelled"),
			text: "Cancel",
		}),
	);
}

// ---- claims -------------------------------------------------------------------------------------

function claimTable(rows, empty) {
	return table(
		[
			["Claim", (c) => idLink(c.id)],
			[
				"Resource",
				(c) => [
					h("code", { text: c.path ?? c.resource_id }),
					c.symbol ? h("span", { class: "muted", text: ` ${c.symbol}` }) : null,
					c.start_line ? h("span", { class: "muted", text: ` L${c.start_line}–${c.end_line ?? ""}` }) : null,
				],
				"wide",
			],
			["Type", (c) => c.claim_type],
			["Agent", (c) => who(c.agent_id)],
			["Task", (c) => idLink(c.task_id)],
			["Status", (c) => [pill(c.status), c.expiring_soon ? pill("expiring soon", "warn") : null]],
			["Expires", (c) => time(c.expires_at)],
			["Why", (c) => h("span", { class: "muted", text: c.status_reason ?? c.rationale ?? "" })],
		],
		rows,
		{ empty, label: "Claims" },
	);
}

export function claims(app) {
	const s = app.state;
	const soon = s.claims.filter((c) => c.status === "active" && c.expiring_soon);
	const active = s.claims.filter((c) => c.status === "active" && !c.expiring_soon);
	const suspended = s.claims.filter((c) => c.status === "suspended");
	return h(
		"div",
		{ class: "view" },
		section("Expiring soon", claimTable(soon, "No claim expires within five minutes."), {
			count: soon.length,
			id: "claims-soon",
		}),
		section("Active", claimTable(active, "No other active claims."), {
			count: active.length,
			id: "claims-active",
		}),
		section("Suspended", claimTable(suspended, "No suspended claims."), {
			count: suspended.length,
			id: "claims-suspended",
		}),
	);
}

// ---- proposals ----------------------------------------------------------------------------------

export function proposals(app) {
	const s = app.state;
	const asked = new Map();
	for (const a of s.approvals)
		if (a.proposal_id && (a.status === "requested" || !asked.has(a.proposal_id)))
			asked.set(a.proposal_id, a.status);
	const rows = [...s.proposals].sort(
		(a, b) => Number(OPEN_PROPOSAL.has(b.status)) - Number(OPEN_PROPOSAL.has(a.status)) || byNewest(a, b),
	);
	return h(
		"div",
		{ class: "view" },
		section(
			"Proposals",
			table(
				[
					["ID", (p) => idLink(p.id, "proposals")],
					[
						"Title",
						(p) => h("a", { href: `#/proposals/${encodeURIComponent(p.id)}`, text: p.title }),
						"wide",
					],
					["Status", (p) => proposalStatus(p)],
					["Risk", (p) => pill(p.risk, p.risk === "high" || p.risk === "critical" ? "bad" : "none")],
					["Author", (p) => who(p.agent_id)],
					["Task", (p) => idLink(p.task_id)],
					["Rev", (p) => `r${p.patch_revision}`, "num"],
					["Files", (p) => h("span", { title: p.patch_files.join("\n"), text: p.patch_files.length }), "num"],
					[
						"Approval",
						(p) => (asked.has(p.id) ? pill(asked.get(p.id)) : h("span", { class: "muted", text: "—" })),
					],
					["Updated", (p) => time(p.updated_at)],
				],
				rows,
				{ empty: "No proposals yet.", label: "Proposals" },
			),
			{ count: rows.length, id: "proposals" },
		),
	);
}
