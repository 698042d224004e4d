// A headless session's transcript (src/launch/transcript.ts) on a real file: bounded to its newest
// part, and no secret ever written, even when one arrives split across writes.
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Transcript } from "../../src/launch/transcript.ts";
import { removeTempDirs, tempDir } from "../_helpers/helpers.ts";

afterAll(removeTempDirs);

const SECRET = "rtcap_0123456789abcdefghijklmnopqrstuv";

describe("a transcript", () => {
	test("a secret split over writes, byte by byte, is redacted; the rest is kept as written", () => {
		const path = join(tempDir("rt-transcript-"), "t", "S-1.log");
		const t = new Transcript(path, 1 << 20, [SECRET, "operator-token-xyz"]);
		const out = t.channel();
		const text = `start ${SECRET} middle operator-token-xyz end ${SECRET.slice(0, 10)}`;
		for (const byte of Buffer.from(text)) out.write(new Uint8Array([byte]));
		t.close();
		expect(readFileSync(path, "utf8")).toBe(`start [redacted] middle [redacted] end ${SECRET.slice(0, 10)}`);
	});

	test("a secret split over one stream's writes is redacted however the other stream's writes fall between", () => {
		const path = join(tempDir("rt-transcript-"), "S-4.log");
		const t = new Transcript(path, 1 << 20, [SECRET]);
		const stdout = t.channel();
		const stderr = t.channel();
		stdout.write(Buffer.from(`token: ${SECRET.slice(0, 12)}`));
		stderr.write(Buffer.from("a warning\n"));
		stdout.write(Buffer.from(`${SECRET.slice(12)}\n`));
		t.close();
		const kept = readFileSync(path, "utf8");
		expect(kept).toBe("token: a warning\n[redacted]\n");
		expect(kept).not.toContain(SECRET.slice(0, 12));
		expect(kept).not.toContain(SECRET.slice(12));
	});

	test("what cannot be the start of a secret is written at once, for a follower to see", () => {
		const path = join(tempDir("rt-transcript-"), "S-3.log");
		const t = new Transcript(path, 1 << 20, [SECRET]);
		const out = t.channel();
		out.write(Buffer.from("working on it\n"));
		expect(readFileSync(path, "utf8")).toBe("working on it\n");
		out.write(Buffer.from("and now rtcap_01"));
		expect(readFileSync(path, "utf8")).toBe("working on it\nand now ");
		t.close();
		expect(readFileSync(path, "utf8")).toBe("working on it\nand now rtcap_01");
	});

	test("past its bound only the newest part stays, from a line's start, marked", () => {
		const path = join(tempDir("rt-transcript-"), "S-2.log");
		const t = new Transcript(path, 10_000, [SECRET]);
		const out = t.channel();
		for (let i = 0; i < 2000; i++) out.write(Buffer.from(`line ${i}\n`));
		t.close();
		const kept = readFileSync(path, "utf8");
		expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(10_000);
		expect(kept.startsWith("[earlier output dropped]\nline ")).toBe(true);
		expect(kept.endsWith("line 1999\n")).toBe(true);
		expect(kept).not.toContain("line 0\n");
	});
});
