// The agents at work: live and recent sessions (binding, attempt, age, the last line each agent
// wrote), and one session's transcript, followed while the session stands.
import { getTranscript } from "./api.js";
import { h, idLink, pill, section, table, time } from "./dom.js";

const live = (s) => s.status !== "ended";

/** "42 s", "7 min", "3 h": how long ago `iso` was. */
function age(iso, now) {
	const s = Math.max(0, Math.round((Date.parse(now) - Date.parse(iso)) / 1000));
	const text = s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min` : `${Math.floor(s / 3600)} h`;
	return h("span", { title: new Date(iso).toLocaleString(), text });
}

function binding(s) {
	const parts = [
		s.task_id ? ["task ", idLink(s.task_id)] : null,
		s.proposal_id ? ["proposal ", idLink(s.proposal_id, "proposals")] : null,
		s.run_id && !s.task_id ? ["run ", idLink(s.run_id)] : null,
	].filter(Boolean);
	return parts.length > 0
		? parts.flatMap((p, i) => (i === 0 ? p : [", ", ...p]))
		: h("span", { class: "muted", text: "—" });
}

function attempt(s) {
	if (s.attempt <= 1) return String(s.attempt);
	return h("span", {
		title: s.interrupted ? `${s.interrupted} cut short by the owner's stop` : null,
		text: String(s.attempt),
	});
}

function sessionTable(app, rows, empty) {
	return table(
		[
			["ID", (s) => idLink(s.id, "sessions")],
			[
				"Agent",
				(s) => [h("strong", { text: s.agent_id }), h("span", { class: "muted", text: ` ${s.role ?? ""}` })],
			],
			["Binding", binding],
			["State", (s) => pill(live(s) ? "live" : "ended")],
			["Attempt", attempt, "num"],
			["Age", (s) => age(s.started_at, app.state.now)],
			[
				"Last output",
				(s) =>
					s.last_line === null
						? h("span", { class: "muted", text: s.transcript_bytes === 0 ? "no transcript" : "—" })
						: h("code", { class: "last-line", text: s.last_line }),
				"wide",
			],
		],
		rows,
		{ empty, label: "Sessions" },
	);
}

export function sessions(app) {
	const all = app.state.sessions;
	const running = all.filter(live);
	const recent = all.filter((s) => !live(s));
	return h(
		"div",
		{ class: "view" },
		section(
			"Live",
			sessionTable(app, running, [
				"No agent is at work. Start one with ",
				h("code", { text: "roundtable sessions start --agent ID --task T" }),
				".",
			]),
			{ count: running.length, id: "sessions-live" },
		),
		section("Recent", sessionTable(app, recent, "No session has ended yet."), {
			count: recent.length,
			id: "sessions-recent",
		}),
	);
}

// ---- one session's transcript -------------------------------------------------------------------

export async function loadTranscript(app, id) {
	const prior = app.ui.transcript?.id === id ? app.ui.transcript : null;
	app.ui.transcript = {
		...(prior ?? { id, text: null, offset: 0, bytes: 0 }),
		id,
		loading: true,
		error: null,
	};
	try {
		const page = await getTranscript(id);
		app.ui.transcript = { id, ...page, loading: false, error: null };
	} catch (err) {
		app.ui.transcript = { ...app.ui.transcript, loading: false, error: err.message };
	}
	app.rerender();
}

/** Like `tail -f`: the transcript stays scrolled to its end, unless the reader scrolled up to read. */
function following(app, pre) {
	const ui = app.ui;
	const where = ui.transcriptScroll;
	requestAnimationFrame(() => {
		pre.scrollTop = where === undefined || where === "end" ? pre.scrollHeight : where;
	});
	pre.addEventListener("scroll", () => {
		ui.transcriptScroll = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4 ? "end" : pre.scrollTop;
	});
	return pre;
}

export function transcriptView(app, id) {
	const s = app.state.sessions.find((x) => x.id === id);
	const t = app.ui.transcript?.id === id ? app.ui.transcript : null;
	const head = s
		? h(
				"dl",
				{ class: "facts" },
				h("dt", { text: "Agent" }),
				h("dd", { text: `${s.agent_id} (${s.role ?? "no role"})` }),
				h("dt", { text: "Binding" }),
				h("dd", {}, binding(s)),
				h("dt", { text: "State" }),
				h("dd", {}, pill(live(s) ? "live" : "ended"), s.ended_at ? [" ", time(s.ended_at)] : null),
				h("dt", { text: "Attempt" }),
				h("dd", { text: String(s.attempt) }),
				h("dt", { text: "Started" }),
				h("dd", {}, time(s.started_at)),
			)
		: null;
	let body;
	if (!t || (t.loading && t.text === null))
		body = h("p", { class: "muted", text: "Loading the transcript…" });
	else if (t.error && t.text === null)
		body = h("p", { class: "flash flash-bad", role: "alert", text: t.error });
	else
		body = [
			t.offset > 0 ? h("p", { class: "muted", text: `The first ${t.offset} bytes are not shown.` }) : null,
			following(
				app,
				h("pre", {
					class: "log transcript",
					tabindex: "0",
					"aria-label": `Transcript of ${id}`,
					text: t.text === "" ? "(nothing written yet)" : t.text,
				}),
			),
		];
	return h(
		"div",
		{ class: "view" },
		h("p", {}, h("a", { href: "#/sessions", text: "← Sessions" })),
		section(["Session ", h("code", { text: id })], h("div", { class: "pad" }, head, body), {
			id: "transcript",
		}),
	);
}
