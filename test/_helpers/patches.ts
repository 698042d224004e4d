// Patches written by hand, as an agent (or an attacker) hands them in: a new file, a symlink.

/** A git-style patch that adds `path` with `text`. */
export function newFilePatch(path: string, text: string): string {
	const lines = text.split("\n").slice(0, -1);
	return [
		`diff --git a/${path} b/${path}`,
		"new file mode 100644",
		"--- /dev/null",
		`+++ b/${path}`,
		`@@ -0,0 +1,${lines.length} @@`,
		...lines.map((l) => `+${l}`),
		"",
	].join("\n");
}

/** A git-style patch that makes `path` a symlink to `target`. */
export const symlinkPatch = (path: string, target: string) =>
	[
		`diff --git a/${path} b/${path}`,
		"new file mode 120000",
		"--- /dev/null",
		`+++ b/${path}`,
		"@@ -0,0 +1 @@",
		`+${target}`,
		"\\ No newline at end of file",
		"",
	].join("\n");
