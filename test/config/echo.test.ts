// A long unknown key in the config or the policy file is echoed as a short prefix with its length:
// the owner logs these messages when a reload fails, so they must stay bounded too.
import { describe, expect, test } from "bun:test";
import { parseConfig } from "../../src/config/load.ts";
import { ECHO_CHARS } from "../../src/domain/text.ts";
import { parsePolicy } from "../../src/policy/index.ts";

// YAML's implicit keys stop at 1024 characters; this one is well past the echo.
const KEY = "k".repeat(1000);

function messageOf(fn: () => unknown): string {
	try {
		fn();
	} catch (err) {
		return (err as Error).message;
	}
	throw new Error("expected an error");
}

describe("a long unknown key", () => {
	test("in config.yaml", () => {
		const message = messageOf(() => parseConfig(`storage:\n  ${KEY}: 1\n`, "config.yaml"));
		const path = `storage.${KEY}`;
		expect(message).toBe(
			`config.yaml:2: unknown key '${path.slice(0, ECHO_CHARS)}…' (${path.length} characters)`,
		);
	});

	test("in the policy file", () => {
		const message = messageOf(() => parsePolicy(`# P\n\n\`\`\`yaml\nrisk:\n  ${KEY}: 1\n\`\`\`\n`, "P.md"));
		const path = `risk.${KEY}`;
		expect(message).toBe(`P.md:5: unknown key '${path.slice(0, ECHO_CHARS)}…' (${path.length} characters)`);
	});
});
