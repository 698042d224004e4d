// Every tool, every argument: a 64 KiB string where the argument goes (alone, and beside short
// values for the other required arguments) fails or succeeds with an error no longer than a short
// prefix of it. A hostile caller cannot make the owner build, log or send back what it sent.
import { describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { systemContext } from "../../src/context.ts";
import { call, callerOf } from "../../src/dispatch.ts";
import { ECHO_CHARS, searchWork } from "../../src/domain/text.ts";
import { argNames, findTool, jsonSchemas, TOOLS } from "../../src/registry/index.ts";
import { InFlight } from "../../src/transports/inflight.ts";
import { createMcpServer } from "../../src/transports/mcp-server.ts";
import { makeProject } from "../_helpers/helpers.ts";

const HUGE = "x".repeat(64 * 1024);
// The message may add its own words around the echo: the tool, the field, what was expected.
const BOUND = ECHO_CHARS + 400;

const p = await makeProject();

/** The error of a call, or undefined when it succeeded; internal tools are called as the system. */
async function errorOf(tool: string, args: Record<string, unknown>) {
	try {
		await call(p.rt, tool, args, findTool(tool)?.visibility === "internal" ? systemContext() : p.ctx);
		return undefined;
	} catch (err) {
		return err as { code: string; message: string; details?: unknown };
	}
}

function expectBounded(err: { message: string; details?: unknown } | undefined, what: string) {
	if (err === undefined) return;
	expect({ what, length: err.message.length }).toEqual({ what, length: Math.min(err.message.length, BOUND) });
	const details = JSON.stringify(err.details ?? null);
	expect({ what, length: details.length }).toEqual({ what, length: Math.min(details.length, BOUND) });
}

describe("a huge string is never echoed whole", () => {
	for (const tool of TOOLS) {
		// test.run would run whatever command it was given: its arguments are covered by the key case.
		const names = tool.name === "test.run" ? [] : argNames(tool);
		test(tool.name, async () => {
			const required = (jsonSchemas(tool).input.required ?? []) as string[];
			const short = Object.fromEntries(required.map((k) => [k, "x"]));
			for (const arg of names) {
				expectBounded(await errorOf(tool.name, { [arg]: HUGE }), `${arg} alone`);
				expectBounded(await errorOf(tool.name, { ...short, [arg]: HUGE }), `${arg} beside the required`);
			}
			const key = await errorOf(tool.name, { [HUGE]: 1 });
			expect(key?.code).toBe("invalid_argument");
			expectBounded(key, "a huge key");
		});
	}

	test("a huge tool name", async () => {
		const err = await errorOf(HUGE, {});
		expect(err?.code).toBe("not_found");
		expect(err?.message).toBe(`unknown tool '${"x".repeat(ECHO_CHARS)}…' (${HUGE.length} characters)`);
		expect(err?.details).toEqual({ tool: `${"x".repeat(ECHO_CHARS)}…` });
	});

	test("a huge tool name over MCP: −32602 with a short message, never searched", async () => {
		const server = createMcpServer(callerOf(p.rt), {
			transport: "internal",
			principal: { kind: "operator" },
			inflight: new InFlight(),
		});
		const [a, b] = InMemoryTransport.createLinkedPair();
		await server.connect(a);
		const client = new Client({ name: "echo-bounds", version: "1" });
		await client.connect(b);
		const searches = searchWork.searches;
		const thrown = await client.callTool({ name: HUGE, arguments: {} }).catch((err: unknown) => err);
		expect(thrown).toBeInstanceOf(McpError);
		expect((thrown as McpError).code).toBe(-32602);
		expect((thrown as McpError).message).toContain(
			`'${"x".repeat(ECHO_CHARS)}…' (${HUGE.length} characters)`,
		);
		expect((thrown as McpError).message.length).toBeLessThan(BOUND);
		expect(searchWork.searches).toBe(searches);
		await client.close();
	});
});

describe("deep nesting is refused before the schema describes it", () => {
	/** A value nested `depth` arrays deep, built without recursion. */
	const nested = (depth: number) => {
		let v: unknown = "low";
		for (let i = 0; i < depth; i++) v = [v];
		return v;
	};

	test("10^5 levels in an enum argument: invalid_argument naming the field and the limit", async () => {
		// Before: arktype described the value in time and memory quadratic in the depth.
		const err = await errorOf("task.create", { title: "t", body_md: "b", risk: nested(100_000) });
		expect(err?.code).toBe("invalid_argument");
		expect(err?.message).toBe("argument 'risk' is nested more than 32 levels deep");
		expect(err?.details).toEqual({ field: "risk" });
	});

	test("a wide, shallow value is not mistaken for a deep one", async () => {
		const paths = Array.from({ length: 10_000 }, (_, i) => `src/f${i}.ts`);
		const r = await p.call("task.create", { title: "t", body_md: "b", readable_paths: paths });
		expect((r.task as { readable_paths: string[] }).readable_paths).toHaveLength(10_000);
	});

	test("33 levels is refused, 31 reaches the schema's own message", async () => {
		const deep = await errorOf("task.create", { title: "t", body_md: "b", risk: nested(33) });
		expect(deep?.message).toContain("nested more than 32 levels");
		const shallow = await errorOf("task.create", { title: "t", body_md: "b", risk: nested(31) });
		expect(shallow?.code).toBe("invalid_argument");
		expect(shallow?.message).not.toContain("nested more than");
	});
});
