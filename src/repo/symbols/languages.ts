// Which grammar reads which file. Kept apart from the parsers so that choosing files costs no WASM.
import { extname } from "node:path";
import type { SYMBOL_LANGUAGES } from "../../vocabulary/statuses.ts";

export type SymbolLanguage = (typeof SYMBOL_LANGUAGES)[number];

const BY_EXTENSION: Record<string, SymbolLanguage> = {
	".ts": "typescript",
	".tsx": "tsx",
	".js": "javascript",
	".jsx": "javascript",
	".mjs": "javascript",
	".cjs": "javascript",
	".py": "python",
	".go": "go",
};

/** The language of a file by its extension (case-insensitive), or undefined when we have no grammar. */
export function languageOf(path: string): SymbolLanguage | undefined {
	return BY_EXTENSION[extname(path).toLowerCase()];
}
