// What the table knows and says: memory search (/api/memory, results with their matched words
// marked) and the open questions and newest messages.
import { getJson } from "./api.js";
import { h, idLink, markdown, pill, section, table, time } from "./dom.js";
import { toggle, who } from "./parts.js";

// ---- memory -------------------------------------------------------------------------------------

async function search(app) {
	const m = app.ui.memory;
	if (m.q.trim() === "") return;
	m.loading = true;
	app.rerender();
	try {
		const out = await getJson(`/api/memory?q=${encodeURIComponent(m.q)}`);
		m.results = out.entries ?? [];
		m.error = null;
	} catch (err) {
		m.error = err.message;
	} finally {
		m.loading = false;
		app.focusKey = "memory-q";
		app.rerender();
	}
}

/** A search snippet with its **matched words** marked, built as text nodes and <mark>s. */
function highlighted(snippet) {
	return snippet.split(/\*\*(.+?)\*\*/).map((part, i) => (i % 2 === 1 ? h("mark", { text: part }) : part));
}

export function memory(app) {
	const m = app.ui.memory;
	const form = h(
		"form",
		{
			class: "search",
			role: "search",
			onsubmit: (e) => {
				e.preventDefault();
				search(app);
			},
		},
		h("label", { for: "memory-q", class: "sr-only", text: "Search memory" }),
		h("input", {
			id: "memory-q",
			type: "search",
			"data-key": "memory-q",
			placeholder: "Search project memory (words; press / from anywhere)",
			value: m.q,
			oninput: (e) => {
				m.q = e.target.value;
			},
		}),
		h("button", {
			type: "submit",
			class: "btn",
			disabled: m.loading,
			text: m.loading ? "Searching…" : "Search",
		}),
	);
	let results = null;
	if (m.error) results = h("p", { class: "flash flash-bad", role: "alert", text: m.error });
	else if (m.results)
		results = table(
			[
				[
					"Entry",
					(e) => [
						toggle(app, `memory:${e.id}`, e.title),
						h("p", { class: "snippet" }, highlighted(e.snippet ?? "")),
					],
					"wide",
				],
				["Kind", (e) => pill(e.kind, "none")],
				["Scope", (e) => e.scope],
				["About", (e) => (e.proposal_id ? idLink(e.proposal_id, "proposals") : idLink(e.task_id))],
				[
					"Status",
					(e) => pill(e.status === "stale" ? "stale" : "active", e.status === "stale" ? "warn" : "ok"),
				],
				["Importance", (e) => e.importance, "num"],
				["Updated", (e) => time(e.updated_at)],
			],
			m.results,
			{
				empty: `Nothing in memory matches “${m.q}”.`,
				label: "Memory results",
				detail: (e) => (app.ui.open.has(`memory:${e.id}`) ? markdown(e, "body_md") : null),
			},
		);
	return h(
		"div",
		{ class: "view" },
		section("Memory", [form, results], { id: "memory", count: m.results?.length }),
	);
}

// ---- questions and messages ---------------------------------------------------------------------

export function messages(app) {
	const s = app.state;
	const questions = [...s.questions].sort((a, b) => (a.created_at < b.created_at ? -1 : 1));
	return h(
		"div",
		{ class: "view" },
		section(
			"Open questions",
			table(
				[
					["ID", (q) => idLink(q.id)],
					["From → to", (q) => [who(q.requester_id), " → ", who(q.assignee_id)]],
					["Question", (q) => markdown(q, "question_md"), "wide"],
					["About", (q) => (q.proposal_id ? idLink(q.proposal_id, "proposals") : idLink(q.task_id))],
					["Asked", (q) => time(q.created_at)],
				],
				questions,
				{ empty: "No open questions.", label: "Open questions" },
			),
			{ count: questions.length, id: "questions" },
		),
		section(
			"Messages",
			s.messages.length === 0
				? h("p", { class: "empty", text: "No messages." })
				: h(
						"ol",
						{ class: "messages" },
						s.messages.map((msg) =>
							h(
								"li",
								{ class: "message" },
								h(
									"div",
									{ class: "message-head" },
									who(msg.sender_id),
									" → ",
									msg.channel
										? h("span", { class: "channel", text: `#${msg.channel}` })
										: who(msg.to_agent_id),
									" ",
									time(msg.created_at),
									msg.to_agent_id && !msg.read_at ? [" ", pill("unread", "warn")] : null,
								),
								markdown(msg, "body_md"),
							),
						),
					),
			{ count: s.messages.length, id: "messages" },
		),
	);
}
