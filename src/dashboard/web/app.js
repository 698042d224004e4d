// The entry index.html loads: fetch the snapshot (/api/state), follow the event stream and re-fetch what
// changed (debounced), route by the hash, draw the current view. A view is redrawn only when its slice of
// the state or the ui changed; focus is found again by data-key, so live updates never steal it.
import { ApiError, follow, getJson, postJson, setCsrf } from "./api.js";
import { h } from "./dom.js";
import { proposalView } from "./proposal.js";
import { loadTranscript, transcriptView } from "./sessions.js";
import { VIEWS } from "./views.js";

const main = document.getElementById("main");
const nav = document.getElementById("nav");
const conn = document.getElementById("conn");
const banner = document.getElementById("banner");

const app = {
	state: null,
	/** What the reader did: open rows, the confirm form, filters, the diff mode, fetched logs. */
	ui: {
		open: new Set(),
		confirm: null,
		note: "",
		override: false,
		busy: null,
		flash: {},
		taskFilter: "all",
		memory: { q: "", results: null, error: null, loading: false },
		diffMode: localStorage.getItem("rt.diffMode") === "split" ? "split" : "unified",
		revision: {},
		files: {},
		logs: {},
		detail: null,
	},
	focusKey: null,
	rerender: () => render(true),
	refresh: () => changed(),
	loadDetail: (id) => loadDetail(id),
};

// ---- routing ------------------------------------------------------------------------------------

function route() {
	const [name = "", id] = location.hash.replace(/^#\/?/, "").split("/");
	if (name === "proposals" && id) return { name: "proposal", id: decodeURIComponent(id) };
	if (name === "sessions" && id) return { name: "session", id: decodeURIComponent(id) };
	return { name: VIEWS[name] ? name : "overview" };
}

const TABS = [
	["overview", "Overview"],
	["tasks", "Tasks"],
	["claims", "Claims"],
	["proposals", "Proposals"],
	["transactions", "Transactions"],
	["approvals", "Approvals"],
	["memory", "Memory"],
	["messages", "Messages"],
	["sessions", "Sessions"],
];

function badges(s) {
	if (!s) return {};
	return {
		approvals: s.approvals.filter((a) => a.status === "requested").length,
		proposals: s.proposals.filter((p) => p.status === "pending" || p.status === "in_review").length,
		claims: s.claims.filter((c) => c.expiring_soon || c.status === "suspended").length,
		messages: s.questions.length,
		sessions: s.sessions.filter((x) => x.status !== "ended").length,
		tasks: s.tasks.filter((t) => t.status === "open" || t.status === "in_progress" || t.status === "blocked")
			.length,
	};
}

let navKey = "";

/** The tabs with their counts; rebuilt only when those change, so a focused tab keeps its focus. */
function drawNav(current) {
	const counts = badges(app.state);
	const here = current === "proposal" ? "proposals" : current === "session" ? "sessions" : current;
	const key = JSON.stringify([here, counts]);
	if (key === navKey) return;
	navKey = key;
	nav.replaceChildren(
		...TABS.map(([name, label], i) =>
			h(
				"a",
				{
					href: `#/${name === "overview" ? "" : name}`,
					"aria-current": name === here ? "page" : null,
					title: `${label} (key ${i + 1})`,
				},
				label,
				counts[name] ? h("span", { class: "badge", text: counts[name] }) : null,
			),
		),
	);
}

// ---- drawing ------------------------------------------------------------------------------------

let drawnKey = "";

function viewKey(r) {
	const s = app.state;
	const view =
		r.name === "proposal"
			? { deps: ["approvals", "proposals", "security_reviews"] }
			: r.name === "session"
				? { deps: ["sessions"] }
				: VIEWS[r.name];
	const slice = s ? view.deps.map((d) => s[d]) : null;
	const detail = r.name === "proposal" ? app.ui.detail : r.name === "session" ? app.ui.transcript : null;
	return JSON.stringify([r, slice, detail]);
}

function render(force = false) {
	const r = route();
	const key = viewKey(r);
	drawNav(r.name);
	if (!force && key === drawnKey) return;
	drawnKey = key;
	const active = document.activeElement;
	const focus = app.focusKey ?? (main.contains(active) ? active?.dataset?.key : null);
	app.focusKey = null;
	let body;
	if (!app.state) body = h("p", { class: "empty", text: "Loading the table…" });
	else if (r.name === "proposal") body = proposalView(app, r.id);
	else if (r.name === "session") body = transcriptView(app, r.id);
	else body = VIEWS[r.name].render(app);
	main.replaceChildren(body);
	const label =
		r.name === "proposal" || r.name === "session" ? r.id : (TABS.find(([n]) => n === r.name)?.[1] ?? "");
	const waiting = badges(app.state).approvals;
	document.title = `${label} · Roundtable${waiting ? ` (${waiting} awaiting approval)` : ""}`;
	if (focus) main.querySelector(`[data-key="${CSS.escape(focus)}"]`)?.focus();
}

function showBanner(text, link) {
	if (!text) return banner.replaceChildren();
	banner.replaceChildren(
		h("p", { role: "alert" }, text, link ? [" ", h("a", { href: link.href, text: link.text })] : null),
	);
}

// ---- data ---------------------------------------------------------------------------------------

async function loadState() {
	try {
		app.state = await getJson("/api/state");
		setCsrf(app.state.csrf_token);
		showBanner(null);
	} catch (err) {
		if (err instanceof ApiError && err.status === 401)
			showBanner("Your dashboard session has ended.", { href: "/", text: "Sign in again" });
		else showBanner(`Could not load the table: ${err.message}`);
		throw err;
	}
	render();
}

async function loadDetail(id) {
	const prior = app.ui.detail?.id === id ? app.ui.detail : null;
	app.ui.detail = { id, data: prior?.data ?? null, error: null };
	try {
		app.ui.detail = { id, data: await getJson(`/api/proposals/${encodeURIComponent(id)}`), error: null };
	} catch (err) {
		app.ui.detail = { id, data: prior?.data ?? null, error: err.message };
	}
	render();
}

// One fetch at a time; events arriving meanwhile coalesce into one more fetch 100 ms later.
let timer = 0;
let fetching = false;
let dirty = false;
let detailDirty = false;

function changed(event) {
	dirty = true;
	const open = route();
	if (open.name === "proposal" && (!event || JSON.stringify(event).includes(open.id))) detailDirty = true;
	if (!timer && !fetching) timer = setTimeout(pull, 100);
}

async function pull() {
	timer = 0;
	fetching = true;
	dirty = false;
	const detail = detailDirty;
	detailDirty = false;
	const open = route();
	try {
		await Promise.all([loadState(), detail && open.name === "proposal" ? loadDetail(open.id) : null]);
	} catch {
		// the banner says it; the next event or reconnect tries again
	} finally {
		fetching = false;
		if (dirty || detailDirty) timer = setTimeout(pull, 100);
	}
}

let wasLive = false;
function showConnection(status) {
	const words = {
		connecting: "connecting…",
		live: "live",
		reconnecting: "reconnecting…",
		offline: "offline",
	};
	conn.className = `conn conn-${status}`;
	conn.replaceChildren(h("span", { class: "dot", "aria-hidden": "true" }), words[status] ?? status);
	conn.title = status === "live" ? "Following the event stream" : "Not receiving events; retrying";
	// A reconnect catches up on anything missed; going offline checks whether the session ended.
	if ((status === "live" && wasLive) || status === "offline") changed();
	if (status === "live") wasLive = true;
}

// ---- signing out --------------------------------------------------------------------------------

document.getElementById("logout").addEventListener("click", async () => {
	try {
		await postJson("/api/logout", {});
	} catch {
		// ended already: the login page is where this goes either way
	}
	location.assign("/");
});

// ---- keys ---------------------------------------------------------------------------------------

document.addEventListener("keydown", (e) => {
	if (e.key === "Escape" && app.ui.confirm) {
		app.focusKey = `decide:${app.ui.confirm.id}`;
		app.ui.confirm = null;
		return render(true);
	}
	if (e.altKey || e.ctrlKey || e.metaKey || e.target.closest?.("input, textarea, select")) return;
	const n = Number(e.key);
	if (n >= 1 && n <= TABS.length) {
		const name = TABS[n - 1][0];
		location.hash = `#/${name === "overview" ? "" : name}`;
	} else if (e.key === "/") {
		e.preventDefault();
		app.focusKey = "memory-q";
		if (route().name !== "memory")
			location.hash = "#/memory"; // hashchange draws it
		else render(true);
	}
});

window.addEventListener("hashchange", () => {
	const r = route();
	app.ui.confirm = null;
	if (r.name === "proposal") loadDetail(r.id); // fresh each visit: events while away were not followed
	if (r.name === "session") {
		app.ui.transcriptScroll = undefined;
		loadTranscript(app, r.id);
	}
	render(true);
	// Focus goes to the new view (where a screen reader starts reading) unless a control in it already
	// has it (the memory search after "/", which a draw between the key and this event may have focused).
	const active = document.activeElement;
	if (!main.contains(active) || active === main) main.focus({ preventScroll: true });
	window.scrollTo(0, 0);
});

// ---- start --------------------------------------------------------------------------------------

async function start() {
	render(true);
	const r = route();
	try {
		await Promise.all([
			loadState(),
			r.name === "proposal" ? loadDetail(r.id) : null,
			r.name === "session" ? loadTranscript(app, r.id) : null,
		]);
	} catch {
		// shown in the banner; the stream's reconnects retry
	}
	follow(app.state?.last_event_id ?? null, { onEvent: changed, onStatus: showConnection });
	setInterval(watchAgents, AGENT_POLL_MS);
}

// What an agent writes makes no event: while a live session is on screen, its output is read again
// every 2 s (the list's last lines, or the open transcript), and not at all otherwise.
const AGENT_POLL_MS = 2000;
function watchAgents() {
	const r = route();
	if (document.hidden || !app.state) return;
	if (r.name === "sessions" && app.state.sessions.some((s) => s.status !== "ended")) changed();
	if (r.name === "session" && (app.ui.transcript?.live ?? true) && !app.ui.transcript?.loading)
		loadTranscript(app, r.id);
}

start();
