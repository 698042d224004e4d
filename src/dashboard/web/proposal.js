// One proposal, all a person needs to decide on it: the policy's gates with reasons, votes (who, how,
// how sure, why), its human approvals with Approve / Reject, the diff of any revision (unified or side by
// side) with security findings on their lines, and that revision's test runs (sandbox; log when opened).
import { getLog } from "./api.js";
import { approvalActions, rollbackAction } from "./decisions.js";
import { parseDiff, renderDiff } from "./diff.js";
import { h, idLink, markdown, pill, section, shortId, table, time } from "./dom.js";
import { proposalStatus } from "./parts.js";

async function loadLog(app, id, more = false) {
	const log = app.ui.logs[id] ?? { text: "", next: 0 };
	app.ui.logs[id] = { ...log, loading: true, error: null };
	app.rerender();
	try {
		const page = await getLog(id, more ? log.next : 0);
		const text = more ? log.text + page.text : page.text;
		app.ui.logs[id] = { text, next: page.next, more: page.next !== null, loading: false, error: null };
	} catch (err) {
		app.ui.logs[id] = { ...log, loading: false, error: err.message };
	}
	app.rerender();
}

function logPanel(app, id) {
	const log = app.ui.logs[id];
	if (!log || (log.loading && !log.text)) return h("p", { class: "muted", text: "Loading the log…" });
	return [
		log.error ? h("p", { class: "flash flash-bad", role: "alert", text: log.error }) : null,
		h("pre", {
			class: "log",
			tabindex: "0",
			"aria-label": `Log of ${id}`,
			text: log.text === "" ? "(empty log)" : log.text,
		}),
		log.more
			? h("button", {
					type: "button",
					class: "btn",
					onclick: () => loadLog(app, id, true),
					text: log.loading ? "Loading…" : "Load more",
				})
			: null,
	];
}

function segmented(label, options, current, choose) {
	return h(
		"div",
		{ class: "segmented", role: "group", "aria-label": label },
		options.map(([value, text]) =>
			h("button", {
				type: "button",
				"aria-pressed": value === current ? "true" : "false",
				"data-key": `${label}:${value}`,
				onclick: () => choose(value),
				text,
			}),
		),
	);
}

function gatesPanel(gates) {
	if (!gates) return h("p", { class: "empty", text: "No gate report." });
	// An applied proposal's gates are those it was applied under (checked now, they would fail only
	// because it was applied).
	const asOf = gates.as_of;
	if (asOf && (gates.gates ?? []).length === 0)
		return h("p", {
			class: "empty",
			text: `Applied in ${asOf.transaction_id}, before its gates were recorded.`,
		});
	return [
		asOf
			? h(
					"p",
					{ class: "gate-summary" },
					pill("as applied", "ok"),
					" ",
					h("span", {
						class: "muted",
						title: asOf.transaction_id,
						text: `the gates as they stood when ${shortId(asOf.transaction_id)} applied it, `,
					}),
					time(asOf.applied_at),
				)
			: h(
					"p",
					{ class: "gate-summary" },
					pill(gates.valid ? "valid" : "invalid", gates.valid ? "ok" : "bad"),
					" ",
					pill(gates.approvable ? "approvable" : "not approvable", gates.approvable ? "ok" : "bad"),
				),
		h(
			"ul",
			{ class: "gates" },
			(gates.gates ?? []).map((g) =>
				h(
					"li",
					{ class: g.ok ? "gate ok" : "gate fail" },
					h("span", { class: "mark", "aria-label": g.ok ? "passes" : "fails", text: g.ok ? "✓" : "✗" }),
					h("code", { text: g.gate }),
					h("span", { class: "reason", text: g.reason ?? "" }),
				),
			),
		),
	];
}

/** Its transactions: each apply (with Roll back while it stands) and the rollback that undid it. */
function appliedPanel(app, transactions) {
	const byId = new Map(transactions.map((t) => [t.id, t]));
	const undoneBy = new Map(transactions.filter((t) => t.rolls_back).map((t) => [t.rolls_back, t]));
	return h(
		"ul",
		{ class: "applied" },
		transactions
			.filter((t) => t.kind === "apply")
			.map((t) => {
				const back = undoneBy.get(t.id);
				return h(
					"li",
					{ class: `applied-row applied-${t.id}` },
					h(
						"p",
						{},
						pill(t.status === "applied" ? "applied" : "rolled back", t.status === "applied" ? "ok" : "warn"),
						" ",
						idLink(t.id, "transactions"),
						h("span", {
							class: "muted",
							text: ` r${t.patch_revision} · ${t.files.length} file${t.files.length === 1 ? "" : "s"} · by ${t.applied_by} `,
						}),
						time(t.applied_at),
					),
					back && byId.has(back.id)
						? h(
								"p",
								{ class: "rolled-back" },
								"Rolled back in ",
								idLink(back.id, "transactions"),
								h("span", { class: "muted", text: ` by ${back.applied_by} ` }),
								time(back.applied_at),
								back.reason_md ? [": ", markdown(back, "reason_md")] : null,
							)
						: null,
					rollbackAction(app, t),
				);
			}),
	);
}

function votesPanel(votes, current) {
	return table(
		[
			["Agent", (v) => h("span", { class: "who", text: v.agent_id })],
			["Vote", (v) => pill(v.vote)],
			[
				"Confidence",
				(v) => (typeof v.confidence === "number" ? `${Math.round(v.confidence * 100)}%` : "—"),
				"num",
			],
			["Reason", (v) => markdown(v, "reason_md"), "wide"],
			["Rev", (v) => [`r${v.patch_revision}`, v.patch_revision !== current ? pill("earlier", "none") : null]],
		],
		votes,
		{ empty: "No votes yet.", label: "Votes" },
	);
}

function securityPanel(reviews) {
	if (reviews.length === 0) return h("p", { class: "empty", text: "No security review of this revision." });
	return reviews.map((r) =>
		h(
			"div",
			{ class: "review" },
			h(
				"p",
				{},
				pill(r.status),
				" ",
				h("span", { class: "who", text: r.reviewer_id }),
				" ",
				h("span", { class: "muted", text: `${r.mode} · ` }),
				time(r.created_at),
			),
			r.summary_md ? markdown(r, "summary_md") : null,
			(r.findings ?? []).length === 0
				? null
				: table(
						[
							[
								"Severity",
								(f) =>
									pill(f.severity, f.severity === "low" ? "none" : f.severity === "medium" ? "warn" : "bad"),
							],
							["Rule", (f) => h("code", { text: f.rule ?? f.code ?? "" })],
							["Where", (f) => h("code", { text: `${f.path}:${f.line}` })],
							["Finding", (f) => f.message, "wide"],
						],
						r.findings,
						{ label: "Findings" },
					),
		),
	);
}

function testsPanel(app, runs) {
	return table(
		[
			["Run", (t) => idLink(t.id)],
			["Status", (t) => pill(t.status)],
			["Command", (t) => h("code", { text: t.command }), "wide"],
			[
				"Sandbox",
				(t) => [
					pill(t.sandbox, t.sandbox === "bwrap" ? "ok" : "warn"),
					t.sandbox_reason ? h("span", { class: "muted", text: ` ${t.sandbox_reason}` }) : null,
				],
			],
			["Exit", (t) => t.exit_code ?? "—", "num"],
			["Started", (t) => time(t.started_at)],
			["Finished", (t) => time(t.finished_at)],
			[
				"Log",
				(t) => {
					const key = `log:${t.id}`;
					const open = app.ui.open.has(key);
					return h("button", {
						type: "button",
						class: "linkish",
						"aria-expanded": open ? "true" : "false",
						"data-key": key,
						onclick: () => {
							if (open) app.ui.open.delete(key);
							else {
								app.ui.open.add(key);
								if (!app.ui.logs[t.id]) return loadLog(app, t.id);
							}
							app.rerender();
						},
						text: open ? "Hide log" : "Show log",
					});
				},
			],
		],
		runs,
		{
			empty: "No test runs on this revision.",
			label: "Test runs",
			detail: (t) => (app.ui.open.has(`log:${t.id}`) ? logPanel(app, t.id) : null),
		},
	);
}

export function proposalView(app, id) {
	const d = app.ui.detail;
	if (!d || d.id !== id) {
		app.loadDetail(id);
		return h("p", { class: "empty", text: `Loading ${id}…` });
	}
	const back = h(
		"nav",
		{ class: "crumbs", "aria-label": "Breadcrumb" },
		h("a", { href: "#/proposals", text: "← Proposals" }),
	);
	if (!d.data)
		return h(
			"div",
			{ class: "view" },
			back,
			h("p", {
				class: d.error ? "flash flash-bad" : "empty",
				role: d.error ? "alert" : null,
				text: d.error ?? `Loading ${id}…`,
			}),
		);
	const {
		proposal: p,
		revisions = [],
		votes = [],
		security_reviews = [],
		test_runs = [],
		gates,
		transactions = [],
	} = d.data;
	const ui = app.ui;
	const latest = revisions.reduce((m, r) => Math.max(m, r.number), p.patch_revision);
	const rev = ui.revision[id] ?? latest;
	const revision = revisions.find((r) => r.number === rev);
	const reviews = security_reviews.filter((r) => r.patch_revision === rev || r.patch_revision === null);
	const findings = reviews.flatMap((r) => r.findings ?? []);
	const files = revision ? parseDiff(revision.diff ?? "") : [];
	const approvals = app.state.approvals.filter((a) => a.proposal_id === id);
	const lines = (f) => f.hunks.reduce((n, hk) => n + hk.lines.length, 0);
	return h(
		"div",
		{ class: "view proposal" },
		back,
		h(
			"header",
			{ class: "proposal-head" },
			h("h1", {}, idLink(p.id), " ", p.title),
			h(
				"p",
				{ class: "meta" },
				proposalStatus(p),
				" ",
				pill(`${p.risk} risk`, p.risk === "high" || p.risk === "critical" ? "bad" : "none"),
				" by ",
				h("span", { class: "who", text: p.agent_id }),
				" · task ",
				idLink(p.task_id),
				` · revision ${p.patch_revision} · ${p.patch_files.length} file${p.patch_files.length === 1 ? "" : "s"} · updated `,
				time(p.updated_at),
			),
			d.error
				? h("p", { class: "flash flash-bad", role: "alert", text: `Could not refresh: ${d.error}` })
				: null,
			markdown(d.data, "summary_md", "md summary"),
		),
		approvals.length > 0
			? section(
					"Human approval",
					h(
						"ul",
						{ class: "approvals-here" },
						approvals.map((a) =>
							h(
								"li",
								{ class: `approval-row approval-${a.id}` },
								h(
									"p",
									{},
									pill(a.status),
									a.override_policy ? [" ", pill("override", "warn")] : null,
									" ",
									h("strong", { text: a.subject }),
									h("span", {
										class: "muted",
										title: a.id,
										text: ` ${shortId(a.id)} · r${a.patch_revision ?? "—"} · asked by ${a.requested_by}`,
									}),
								),
								markdown(a, "reason_md"),
								approvalActions(app, a),
							),
						),
					),
					{ count: approvals.length, id: "p-approvals" },
				)
			: null,
		transactions.length > 0
			? section("Applied", appliedPanel(app, transactions), { id: "p-applied", count: transactions.length })
			: null,
		h(
			"div",
			{ class: "columns" },
			section("Gates", gatesPanel(gates), {
				id: "p-gates",
				count: gates?.gates ? `${gates.gates.filter((g) => g.ok).length}/${gates.gates.length}` : undefined,
			}),
			section("Votes", votesPanel(votes, p.patch_revision), { id: "p-votes", count: votes.length }),
		),
		section(
			`Diff, revision ${rev}`,
			[
				revision
					? h(
							"p",
							{ class: "muted small pad" },
							rev === p.patch_revision ? null : [pill("earlier revision", "warn"), " "],
							`sha256 ${revision.sha256.slice(0, 12)} · `,
							time(revision.created_at),
						)
					: null,
				revision
					? renderDiff(files, {
							mode: ui.diffMode,
							findings,
							open: (path) =>
								ui.files[`${id}:${rev}:${path}`] ?? lines(files.find((f) => f.path === path)) <= 800,
							onToggle: (path, open) => {
								ui.files[`${id}:${rev}:${path}`] = open;
							},
						})
					: h("p", { class: "empty", text: "This revision's patch is not stored." }),
			],
			{
				id: "p-diff",
				actions: h(
					"div",
					{ class: "tools" },
					revisions.length > 1
						? segmented(
								"Revision",
								revisions.map((r) => [r.number, `r${r.number}`]),
								rev,
								(n) => {
									ui.revision[id] = n;
									app.rerender();
								},
							)
						: null,
					segmented(
						"Diff layout",
						[
							["unified", "Unified"],
							["split", "Side by side"],
						],
						ui.diffMode,
						(mode) => {
							ui.diffMode = mode;
							localStorage.setItem("rt.diffMode", mode);
							app.rerender();
						},
					),
				),
			},
		),
		section(`Security review, revision ${rev}`, securityPanel(reviews), {
			id: "p-security",
			count: reviews.length,
		}),
		section(
			`Tests on revision ${rev}`,
			testsPanel(
				app,
				test_runs.filter((t) => t.patch_revision === rev),
			),
			{
				id: "p-tests",
				count: test_runs.filter((t) => t.patch_revision === rev).length,
			},
		),
	);
}
