// workspace.diff, workspace.propose and workspace.sync. The engine is src/workspaces/: the workspace made at launch,
// its changes as the owner reads them, and those changes proposed.
export {
	diffWorkspace as diff,
	prepareSync,
	prepareWorkspaceProposal as preparePropose,
	proposeWorkspace as propose,
	recordSync as sync,
} from "../workspaces/propose.ts";
