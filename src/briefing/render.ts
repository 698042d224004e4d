// The briefing as Markdown for the terminal (`roundtable resume`): the same facts agent.brief returns,
// section by section, then the claims the resume suspended.

import { clip, firstLine, oneLine } from "./next-action.ts";
import type { ResumeBriefing } from "./resume.ts";

const list = (items: string[]) => (items.length === 0 ? "- none" : items.join("\n"));

export function renderBriefing(b: ResumeBriefing): string {
	const s = b.session;
	const more = b.unread_count - b.unread_messages.length;
	const parts = [
		"# Roundtable Resume Briefing",
		`You are resuming as ${s.agent_id}.`,
		[
			`Run: ${s.run_id ?? "-"}`,
			...(s.external_session_id ? [`External session: ${s.external_session_id}`] : []),
		].join("\n"),
		`Current task:\n${b.task ? `${b.task.id} ${oneLine(b.task.title)} (${b.task.status})` : "(no assigned task)"}`,
		`Your active claims:\n${list(b.claims.map((c) => `- ${c.resource_id} (${c.id}, ${c.claim_type})`))}`,
		`Pending proposals:\n${list(
			b.pending_proposals.map(({ proposal: p, failing_gates }) =>
				[
					`- ${p.id} from you: ${p.status} — ${oneLine(p.title)}`,
					...(p.status_reason ? [`  Reason: ${oneLine(p.status_reason)}`] : []),
					`  Gates: ${failing_gates.length === 0 ? "all pass" : `failing ${failing_gates.join(", ")}`}`,
				].join("\n"),
			),
		)}`,
		`Questions to you:\n${list(
			b.questions_to_me.map((q) => `- ${q.id} from ${q.requester_id}: ${clip(firstLine(q.question_md))}`),
		)}`,
		`Your open questions:\n${list(
			b.questions_from_me.map((q) => `- ${q.id} to ${q.assignee_id}: ${clip(firstLine(q.question_md))}`),
		)}`,
		`Unread messages (${b.unread_count}):\n${list([
			...b.unread_messages.map(
				(m) =>
					`- ${m.id} from ${m.sender_id}${m.channel ? ` in #${m.channel}` : ""}: ${clip(firstLine(m.body_md))}`,
			),
			...(more > 0 ? [`- and ${more} more (message.inbox)`] : []),
		])}`,
		`Latest decisions:\n${list(
			b.latest_decisions.map((d) => `- ${d.id}: ${oneLine(d.decision)} — ${clip(oneLine(d.rationale_md))}`),
		)}`,
		`Required next action:\n${b.required_next_action}`,
	];
	let text = `${parts.join("\n\n")}\n`;
	if (b.suspended_claims.length > 0) {
		text += `\nStale claims suspended on resume:\n${b.suspended_claims
			.map((c) => `- ${c.resource_id} (${c.id})`)
			.join("\n")}\n`;
	}
	return text;
}
