// What the operator decides on: transactions (with rollback state and a Roll back button) and human
// approvals (awaiting a decision, then decided, each with Approve / Reject and a confirm step).
import { approvalActions, rollbackAction } from "./decisions.js";
import { h, idLink, markdown, pill, section, table, time } from "./dom.js";
import { byNewest, toggle, who } from "./parts.js";

// ---- transactions -------------------------------------------------------------------------------

export function transactions(app) {
	const s = app.state;
	const rows = [...s.transactions].sort(byNewest);
	return h(
		"div",
		{ class: "view" },
		section(
			"Transactions",
			table(
				[
					["ID", (t) => idLink(t.id)],
					["Kind", (t) => t.kind],
					[
						"Proposal",
						(t) => [
							idLink(t.proposal_id, "proposals"),
							h("span", { class: "muted", text: ` r${t.patch_revision}` }),
						],
					],
					["State", (t) => pill(t.status)],
					["Undoes", (t) => idLink(t.rolls_back)],
					["By", (t) => who(t.applied_by)],
					["At", (t) => time(t.applied_at)],
					[
						"Files",
						(t) => toggle(app, `tx:${t.id}`, `${t.files.length} file${t.files.length === 1 ? "" : "s"}`),
					],
					["", (t) => (app.ui.confirm?.id === t.id ? null : rollbackAction(app, t))],
				],
				rows,
				{
					empty: "Nothing applied yet.",
					label: "Transactions",
					detail: (t) => {
						const parts = [];
						if (app.ui.open.has(`tx:${t.id}`))
							parts.push(
								h(
									"ul",
									{ class: "files" },
									t.files.map((f) =>
										h(
											"li",
											{},
											h("code", { text: f.path }),
											" ",
											h("span", {
												class: "muted",
												text: f.before === null ? "created" : f.after === null ? "deleted" : "changed",
											}),
										),
									),
								),
							);
						if (t.reason_md) parts.push(markdown(t, "reason_md"));
						if (app.ui.confirm?.id === t.id) parts.push(rollbackAction(app, t));
						return parts.length > 0 ? parts : null;
					},
				},
			),
			{ count: rows.length, id: "transactions" },
		),
	);
}

// ---- approvals ----------------------------------------------------------------------------------

function approvalTable(app, rows, empty) {
	return table(
		[
			["ID", (a) => idLink(a.id)],
			["Subject", (a) => h("strong", { text: a.subject }), "wide"],
			[
				"About",
				(a) =>
					a.proposal_id
						? [
								idLink(a.proposal_id, "proposals"),
								h("span", { class: "muted", text: a.patch_revision ? ` r${a.patch_revision}` : "" }),
							]
						: idLink(a.task_id),
			],
			["Asked by", (a) => who(a.requested_by)],
			["Reason", (a) => markdown(a, "reason_md"), "wide"],
			["Status", (a) => [pill(a.status), a.override_policy ? pill("override", "warn") : null]],
			[
				"Decided",
				(a) =>
					a.decided_at
						? [who(a.decided_by), " ", time(a.decided_at)]
						: h("span", { class: "muted", text: "—" }),
			],
			["", (a) => (app.ui.confirm?.id === a.id ? null : approvalActions(app, a)), "actions-cell"],
		],
		rows,
		{
			empty,
			label: "Approvals",
			rowClass: (a) => `approval-row approval-${a.id}`,
			detail: (a) => {
				const parts = [];
				if (a.decision_md)
					parts.push(
						h(
							"div",
							{ class: "decision" },
							h("span", { class: "muted", text: "Decision: " }),
							markdown(a, "decision_md"),
						),
					);
				if (app.ui.confirm?.id === a.id) parts.push(approvalActions(app, a));
				return parts.length > 0 ? parts : null;
			},
		},
	);
}

export function approvals(app) {
	const s = app.state;
	const waiting = s.approvals
		.filter((a) => a.status === "requested")
		.sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
	const decided = s.approvals.filter((a) => a.status !== "requested").sort(byNewest);
	return h(
		"div",
		{ class: "view" },
		section("Awaiting a decision", approvalTable(app, waiting, "No approval is waiting."), {
			count: waiting.length,
			id: "approvals-waiting",
		}),
		section("Decided", approvalTable(app, decided, "Nothing decided yet."), {
			count: decided.length,
			id: "approvals-decided",
		}),
	);
}
