// Names that are `.git` (or `.roundtable`) to some filesystem a checkout may live on, though not
// byte for byte: git's own verify_path with core.protectHFS and core.protectNTFS refuses them for
// .git, and by the same rule we refuse them for .roundtable. HFS+ folds case and ignores some code
// points; NTFS folds case, drops trailing dots and spaces, reads `name:stream` as `name`, splits on
// a backslash too, and answers to 8.3 short names (GIT~1, ROUNDT~1).

/** Code points HFS+ ignores when it compares names (git's next_hfs_char). */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

const PROTECTED: { name: string; short: RegExp }[] = [
	{ name: ".git", short: /^git~\d+$/ },
	{ name: ".roundtable", short: /^roundt~\d+$/ },
];

/** The protected name one path segment stands for on some filesystem, or undefined. */
export function protectedName(segment: string): string | undefined {
	const folded = segment
		.replace(HFS_IGNORED, "")
		.toLowerCase()
		.replace(/:.*$/s, "") // an NTFS alternate data stream names the file before it
		.replace(/[. ]+$/, ""); // NTFS drops trailing dots and spaces
	const found = PROTECTED.find((p) => folded === p.name || p.short.test(folded));
	return found?.name;
}

/** The first segment of a repo-relative path (split on `/` and `\`) that is a protected name. */
export function protectedSegment(path: string): { segment: string; name: string } | undefined {
	for (const segment of path.split(/[/\\]/)) {
		const name = protectedName(segment);
		if (name) return { segment, name };
	}
	return undefined;
}
