// Small pieces the list views share: status groups, newest-first order, a row's show/hide button
// (its state kept in ui.open so a live redraw keeps it), and an agent's name.
import { h, pill } from "./dom.js";

export const count = (list, test) => list.filter(test).length;
export const OPEN_WORK = new Set(["open", "in_progress", "blocked"]);
export const OPEN_PROPOSAL = new Set(["pending", "in_review"]);
export const byNewest = (a, b) => ((a.updated_at ?? a.created_at) < (b.updated_at ?? b.created_at) ? 1 : -1);

/** A button that shows or hides a row's detail; its state lives in ui.open under `key`. */
export function toggle(app, key, label, cls = "linkish") {
	const open = app.ui.open.has(key);
	return h("button", {
		type: "button",
		class: cls,
		"aria-expanded": open ? "true" : "false",
		"data-key": key,
		onclick: () => {
			if (open) app.ui.open.delete(key);
			else app.ui.open.add(key);
			app.rerender();
		},
		text: label,
	});
}

export const who = (id) =>
	id ? h("span", { class: "who", text: id }) : h("span", { class: "muted", text: "—" });

/** A proposal's status as a person reads it: an accepted proposal is one that was applied. */
export function proposalStatus(p) {
	if (p.status === "accepted") return pill("applied", "ok");
	if (p.status === "rolled_back") return pill("rolled back", "warn");
	return pill(p.status);
}
