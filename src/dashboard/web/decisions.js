// The operator's two decisions on the page: approve or reject a human-approval request (with the
// override flag where it applies) and roll back an applied transaction. Each is two steps: a
// button opens a confirm form saying exactly what will happen, and only its submit posts.
import { ApiError, postJson } from "./api.js";
import { h } from "./dom.js";

function flash(app, id) {
	const f = app.ui.flash[id];
	if (!f) return null;
	return h("p", {
		class: `flash ${f.ok ? "flash-ok" : "flash-bad"}`,
		role: f.ok ? "status" : "alert",
		text: f.text,
	});
}

async function submit(app, id, path, body, done) {
	app.ui.busy = id;
	app.rerender();
	try {
		const result = await postJson(path, body);
		app.ui.flash[id] = { ok: true, text: done(result) };
		app.ui.confirm = null;
		app.focusKey = `decide:${id}`;
	} catch (err) {
		const text = err instanceof ApiError ? `${err.code}: ${err.message}` : String(err);
		app.ui.flash[id] = { ok: false, text: `Refused — ${text}` };
	} finally {
		app.ui.busy = null;
		app.rerender();
		app.refresh();
	}
}

/** A random key: a decision sent twice (a double click, a retry) is made once. */
function idempotencyKey() {
	return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Opens the confirm step for the record `id` at `revision`, the one the operator is looking at: the
 * decision carries it as expected_revision, so a record that changed meanwhile is refused, not decided.
 */
function openConfirm(app, kind, id, revision) {
	app.ui.confirm = { kind, id, revision, key: idempotencyKey() };
	app.ui.note = "";
	app.ui.override = false;
	app.ui.force = false;
	delete app.ui.flash[id];
	app.focusKey = `confirm:${id}`;
	app.rerender();
}

/** A warning when the record changed after its confirm step opened (the decision will be refused). */
function changedSince(ui, record) {
	if (record.revision === ui.confirm?.revision) return null;
	return h("p", {
		class: "flash flash-bad",
		role: "alert",
		text: "This changed since you opened this form; the owner will refuse the decision. Cancel and look again.",
	});
}

/** The confirm step's optional Markdown note, kept in `ui.note` as it is typed. */
function noteField(ui, id, label) {
	return h(
		"label",
		{ class: "field" },
		h("span", { text: label }),
		h("textarea", {
			rows: 2,
			"data-key": `confirm:${id}`,
			value: ui.note,
			oninput: (e) => {
				ui.note = e.target.value;
			},
		}),
	);
}

/** A confirm step's checkbox, kept in `ui[name]`. */
function checkField(ui, name, id, label) {
	return h(
		"label",
		{ class: "check" },
		h("input", {
			type: "checkbox",
			"data-key": `${name}:${id}`,
			checked: ui[name],
			onchange: (e) => {
				ui[name] = e.target.checked;
			},
		}),
		h("span", { text: label }),
	);
}

function cancel(app, id) {
	app.ui.confirm = null;
	app.focusKey = `decide:${id}`;
	app.rerender();
}

/** Approve / Reject buttons for one approval request, or its open confirm form. */
export function approvalActions(app, approval) {
	const { ui } = app;
	const id = approval.id;
	const open = ui.confirm?.id === id ? ui.confirm.kind : null;
	if (open === "approved" || open === "rejected") {
		const approving = open === "approved";
		const what = approval.proposal_id
			? `${approval.proposal_id}${approval.patch_revision ? ` at revision ${approval.patch_revision}` : ""}`
			: approval.task_id
				? `task ${approval.task_id}`
				: "this request";
		return h(
			"form",
			{
				class: `confirm ${approving ? "confirm-ok" : "confirm-bad"}`,
				"aria-label": `${approving ? "Approve" : "Reject"} ${id}`,
				onsubmit: (e) => {
					e.preventDefault();
					const body = {
						status: open,
						expected_revision: ui.confirm.revision,
						idempotency_key: ui.confirm.key,
					};
					if (ui.note.trim() !== "") body.decision_md = ui.note;
					if (approving && ui.override) body.override_policy = true;
					submit(app, id, `/api/approvals/${encodeURIComponent(id)}`, body, (r) => {
						const a = r?.approval ?? {};
						return `${id} ${a.status ?? open}${a.override_policy ? " (policy overridden)" : ""}.`;
					});
				},
			},
			h("p", { class: "confirm-q", text: `${approving ? "Approve" : "Reject"} ${what} as the operator?` }),
			changedSince(ui, approval),
			noteField(ui, id, "Decision note (optional, Markdown)"),
			approving && approval.proposal_id
				? checkField(ui, "override", id, "Override policy: also overrule a security veto on this revision")
				: null,
			h(
				"div",
				{ class: "actions" },
				h("button", {
					type: "submit",
					class: approving ? "btn btn-ok" : "btn btn-bad",
					"data-key": `submit:${id}`,
					disabled: ui.busy === id,
					text: ui.busy === id ? "Sending…" : approving ? "Confirm approval" : "Confirm rejection",
				}),
				h("button", { type: "button", class: "btn", onclick: () => cancel(app, id), text: "Cancel" }),
			),
			flash(app, id),
		);
	}
	const buttons = [];
	if (approval.status !== "approved")
		buttons.push(
			h("button", {
				type: "button",
				class: "btn btn-ok",
				"data-key": `decide:${id}`,
				onclick: () => openConfirm(app, "approved", id, approval.revision),
				text: "Approve…",
			}),
		);
	if (approval.status !== "rejected")
		buttons.push(
			h("button", {
				type: "button",
				class: "btn btn-bad",
				"data-key": approval.status === "approved" ? `decide:${id}` : `reject:${id}`,
				onclick: () => openConfirm(app, "rejected", id, approval.revision),
				text: approval.status === "approved" ? "Revoke (reject)…" : "Reject…",
			}),
		);
	return h("div", { class: "actions" }, buttons, flash(app, id));
}

/** A Roll back button for an applied transaction (or its confirm form); nothing for the rest. */
export function rollbackAction(app, tx) {
	const { ui } = app;
	const id = tx.id;
	if (tx.kind !== "apply" || tx.status !== "applied") return flash(app, id);
	if (ui.confirm?.id === id && ui.confirm.kind === "rollback") {
		const files = tx.files?.length ?? 0;
		return h(
			"form",
			{
				class: "confirm confirm-bad",
				"aria-label": `Roll back ${id}`,
				onsubmit: (e) => {
					e.preventDefault();
					const body = { expected_revision: ui.confirm.revision, idempotency_key: ui.confirm.key };
					if (ui.note.trim() !== "") body.reason_md = ui.note;
					if (ui.force) body.force = true;
					submit(app, id, `/api/transactions/${encodeURIComponent(id)}/rollback`, body, (r) => {
						const back = r?.transaction?.id ?? r?.rollback?.id;
						return `${id} rolled back${back ? ` by ${back}` : ""}.`;
					});
				},
			},
			h("p", {
				class: "confirm-q",
				text: `Roll back ${id} (${tx.proposal_id}, ${files} file${files === 1 ? "" : "s"})? The files get back their bytes and modes from before it; refused if they changed since.`,
			}),
			changedSince(ui, tx),
			noteField(ui, id, "Reason (optional, Markdown)"),
			checkField(ui, "force", id, "Force: overwrite edits made to these files since"),
			h(
				"div",
				{ class: "actions" },
				h("button", {
					type: "submit",
					class: "btn btn-bad",
					"data-key": `submit:${id}`,
					disabled: ui.busy === id,
					text: ui.busy === id ? "Rolling back…" : "Confirm roll back",
				}),
				h("button", { type: "button", class: "btn", onclick: () => cancel(app, id), text: "Cancel" }),
			),
			flash(app, id),
		);
	}
	return h(
		"div",
		{ class: "actions" },
		h("button", {
			type: "button",
			class: "btn",
			"data-key": `decide:${id}`,
			onclick: () => openConfirm(app, "rollback", id, tx.revision),
			text: "Roll back…",
		}),
		flash(app, id),
	);
}
