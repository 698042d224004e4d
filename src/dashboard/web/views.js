// The list views by route name, each with `deps`: the parts of /api/state it shows, so it is redrawn
// only when those change. The proposal detail is proposal.js.
import { approvals, transactions } from "./ledger.js";
import { memory, messages } from "./notes.js";
import { overview } from "./overview.js";
import { sessions } from "./sessions.js";
import { claims, proposals, tasks } from "./work.js";

export const VIEWS = {
	overview: {
		deps: ["runs", "turns", "agents", "approvals", "questions", "claims", "tasks", "proposals"],
		render: overview,
	},
	tasks: { deps: ["tasks"], render: tasks },
	claims: { deps: ["claims"], render: claims },
	proposals: { deps: ["proposals", "approvals"], render: proposals },
	transactions: { deps: ["transactions"], render: transactions },
	approvals: { deps: ["approvals"], render: approvals },
	memory: { deps: [], render: memory },
	messages: { deps: ["questions", "messages"], render: messages },
	sessions: { deps: ["sessions", "now"], render: sessions },
};
