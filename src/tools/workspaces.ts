// workspace.diff and workspace.propose. The engine is src/workspaces/: the workspace made at launch,
// its changes as the owner reads them, and those changes proposed.
export {
	diffWorkspace as diff,
	prepareWorkspaceProposal as preparePropose,
	proposeWorkspace as propose,
} from "../workspaces/propose.ts";
