// Preloaded into a child (`bun --preload` this file): on exit, writes every module the process
// loaded, one path a line, to the file named by RT_LOADED_MODULES.
import { writeFileSync } from "node:fs";

process.on("exit", () => {
	writeFileSync(process.env.RT_LOADED_MODULES as string, Object.keys(require.cache).join("\n"));
});
