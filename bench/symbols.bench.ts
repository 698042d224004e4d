// repo.symbols throughput through the dispatcher: 1,000 generated TypeScript files of about 100
// lines and 20 symbols each, read as one directory and file by file. The one-time parser init
// (WASM runtime + grammar) is measured apart and left out of the rates.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fmt, freshProject } from "./lib.ts";

const FILES = 1_000;
const RUNS = 3;

/** One module: an interface, a class, a type, an enum, functions and consts (20 symbols, ~100 lines). */
function source(i: number): string {
	const fns = [0, 1, 2, 3, 4].map(
		(k) => `/**
 * Step ${k} of module ${i}: weighs an item.
 */
export function step${i}_${k}(input: Item${i}): number {
	const base = input.weight * ${k + 1};
	if (base > 100) {
		return base - 100;
	}
	return base + input.id.length;
}
`,
	);
	return `// Generated module ${i} for bench/symbols.bench.ts.
export interface Item${i} {
	id: string;
	weight: number;
	describe(): string;
	scale(factor: number): Item${i};
}

export type Pair${i} = [Item${i}, Item${i}];

export enum Mode${i} {
	Fast,
	Safe,
	Off,
}

export class Store${i} {
	private items: Item${i}[] = [];

	add(item: Item${i}): void {
		this.items.push(item);
	}

	find(id: string): Item${i} | undefined {
		return this.items.find((x) => x.id === id);
	}

	total(): number {
		let sum = 0;
		for (const item of this.items) sum += item.weight;
		return sum;
	}

	clear(): void {
		this.items = [];
	}
}

${fns.join("\n")}
export const LIMIT_${i} = ${i};
export const NAME_${i} = "module-${i}";
export const DEFAULTS_${i} = { mode: Mode${i}.Safe, limit: LIMIT_${i} };
export const heavier${i} = (a: Item${i}, b: Item${i}): Item${i} => (a.weight >= b.weight ? a : b);
export const lighter${i} = function (a: Item${i}, b: Item${i}): Item${i} {
	return a.weight <= b.weight ? a : b;
};
`;
}

type Result = { symbols: unknown[]; errors: unknown[]; truncated: boolean };

export async function run(): Promise<void> {
	const p = await freshProject();
	const dir = join(p.rt.root, "gen");
	mkdirSync(dir);
	let bytes = 0;
	let lines = 0;
	for (let i = 0; i < FILES; i++) {
		const text = source(i);
		bytes += text.length;
		lines += text.split("\n").length - 1;
		writeFileSync(join(dir, `mod${String(i).padStart(4, "0")}.ts`), text);
	}
	writeFileSync(join(p.rt.root, "warm.ts"), "export const warm = 1;\n");

	let start = performance.now();
	await p.call("repo.symbols", { path: "warm.ts" });
	const init = performance.now() - start;

	console.log(
		`repo.symbols, ${fmt(FILES)} TypeScript files (${fmt(lines / FILES)} lines, ${fmt(bytes / 1024 / 1024, 1)} MB):`,
	);
	console.log(`  parser init (runtime + typescript grammar, once per process)  ${fmt(init, 1)} ms`);

	let best = Number.POSITIVE_INFINITY;
	let symbols = 0;
	for (let r = 0; r < RUNS; r++) {
		start = performance.now();
		const out = (await p.call("repo.symbols", { path: "gen", limit: 20_000 })) as Result;
		best = Math.min(best, performance.now() - start);
		symbols = out.symbols.length;
		if (out.truncated || out.errors.length > 0) throw new Error("expected every symbol and no errors");
	}
	console.log(
		`  one call on the directory (best of ${RUNS})  ${fmt(best)} ms   ${fmt((FILES / best) * 1000)} files/s   ${fmt((symbols / best) * 1000)} symbols/s   (${fmt(symbols)} symbols)`,
	);

	start = performance.now();
	let perFile = 0;
	for (let i = 0; i < FILES; i++) {
		const out = (await p.call("repo.symbols", { path: `gen/mod${String(i).padStart(4, "0")}.ts` })) as Result;
		perFile += out.symbols.length;
	}
	const each = performance.now() - start;
	console.log(
		`  one call per file                         ${fmt(each)} ms   ${fmt((FILES / each) * 1000)} files/s   ${fmt((perFile / each) * 1000)} symbols/s`,
	);
	p.done();
}

if (import.meta.main) await run();
