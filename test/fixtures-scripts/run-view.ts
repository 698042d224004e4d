// Child process for the terminal-view test, run inside a tmux pane: opens the project at argv[2],
// writes its pid to argv[5], shows run argv[3] with runView (refresh argv[4] ms), and after the view
// ends prints one line on the main screen: the result, raw mode as Node sees it, and the terminal's
// mode as `stty -a` reports it (cooked: icanon and echo on). Then it exits by itself, proving
// nothing the view set up keeps the process alive.
import { writeFileSync } from "node:fs";
import { openRuntime } from "../../src/runtime.ts";

const [root, runId, refreshText, pidFile] = process.argv.slice(2);
if (!root || !runId || !refreshText || !pidFile) {
	process.stderr.write("usage: run-view.ts ROOT RUN_ID REFRESH_MS PID_FILE\n");
	process.exit(2);
}
writeFileSync(pidFile, String(process.pid));
process.stdout.write("driver: before the view\n");

// Loaded lazily, as the CLI does.
const { isInteractive, runView } = await import("../../src/tui/run-view.ts");
if (!isInteractive(process.stdin, process.stdout)) {
	process.stderr.write("driver: not a terminal\n");
	process.exit(3);
}
const rt = openRuntime(root);
const result = await runView({
	rt,
	runId,
	refreshMs: Number(refreshText),
	input: process.stdin,
	output: process.stdout,
	status: () => `owner: driver pid ${process.pid}`,
});
rt.close();

const stty = Bun.spawnSync(["stty", "-a"], { stdin: "inherit", stdout: "pipe", stderr: "pipe" });
const flags = new Set(stty.stdout.toString().split(/[\s;]+/));
const cooked = flags.has("icanon") && flags.has("echo");
process.stdout.write(
	`driver: result=${result} raw=${process.stdin.isRaw} tty=${cooked ? "cooked" : "raw"}\n`,
);
