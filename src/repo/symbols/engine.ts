// The tree-sitter side of repo.symbols. index.ts imports this module dynamically, so the WASM
// runtime and grammars (about 4 MB) load on the first symbols call, never for the rest of the CLI.
//
// The .wasm files are imported `with { type: "file" }`: under `bun run` that gives their path in
// node_modules, and `bun build --compile` embeds them and gives a /$bunfs/ path instead. The
// runtime's own wasm must be imported the same way, or the compiled binary looks for it on disk.
import goWasm from "@vscode/tree-sitter-wasm/wasm/tree-sitter-go.wasm" with { type: "file" };
import javascriptWasm from "@vscode/tree-sitter-wasm/wasm/tree-sitter-javascript.wasm" with { type: "file" };
import pythonWasm from "@vscode/tree-sitter-wasm/wasm/tree-sitter-python.wasm" with { type: "file" };
import tsxWasm from "@vscode/tree-sitter-wasm/wasm/tree-sitter-tsx.wasm" with { type: "file" };
import typescriptWasm from "@vscode/tree-sitter-wasm/wasm/tree-sitter-typescript.wasm" with { type: "file" };
import { Language, Parser, Query } from "web-tree-sitter";
import runtimeWasm from "web-tree-sitter/web-tree-sitter.wasm" with { type: "file" };
import type { Extractor, Found } from "./common.ts";
import { go } from "./go.ts";
import type { SymbolLanguage } from "./languages.ts";
import { python } from "./python.ts";
import { type SyntaxProblem, syntaxProblems } from "./syntax.ts";
import { javascript, typescript } from "./typescript.ts";

const GRAMMARS: Record<SymbolLanguage, { wasm: string; extractor: Extractor }> = {
	typescript: { wasm: typescriptWasm, extractor: typescript },
	tsx: { wasm: tsxWasm, extractor: typescript },
	javascript: { wasm: javascriptWasm, extractor: javascript },
	python: { wasm: pythonWasm, extractor: python },
	go: { wasm: goWasm, extractor: go },
};

export interface FileSymbols {
	symbols: Found[];
	errors: SyntaxProblem[];
}

/** A ready grammar: parse one file's text into its symbols and syntax problems. */
export type Reader = (text: string) => FileSymbols;

// Both caches hold promises, so concurrent first calls share one load. A failed load is forgotten
// so that the next call tries again instead of repeating the error forever.
let runtime: Promise<void> | undefined;
const readers = new Map<SymbolLanguage, Promise<Reader>>();

function initRuntime(): Promise<void> {
	runtime ??= Bun.file(runtimeWasm)
		.bytes()
		.then((wasmBinary) => Parser.init({ wasmBinary }))
		.catch((err) => {
			runtime = undefined;
			throw err;
		});
	return runtime;
}

async function load(language: SymbolLanguage): Promise<Reader> {
	await initRuntime();
	const { wasm, extractor } = GRAMMARS[language];
	const grammar = await Language.load(await Bun.file(wasm).bytes());
	const query = new Query(grammar, extractor.query);
	// One parser per grammar, reused: a parse runs start to finish without awaiting, so calls
	// that interleave between files never share it mid-parse.
	const parser = new Parser();
	parser.setLanguage(grammar);
	return (text) => {
		const tree = parser.parse(text);
		if (!tree) throw new Error(`the ${language} parser returned no syntax tree`);
		try {
			const symbols: Found[] = [];
			for (const match of query.matches(tree.rootNode)) extractor.collect(match, symbols);
			return { symbols, errors: syntaxProblems(tree.rootNode) };
		} finally {
			tree.delete(); // trees live in WASM memory, which no garbage collector frees
		}
	};
}

/** The reader for a language, loading the runtime and the grammar on first use. */
export function readerFor(language: SymbolLanguage): Promise<Reader> {
	let reader = readers.get(language);
	if (!reader) {
		reader = load(language).catch((err) => {
			readers.delete(language);
			throw err;
		});
		readers.set(language, reader);
	}
	return reader;
}
