// The SSE event buffer behind resumable HTTP streams: bounded for the whole server, replays only a
// session's own stream after a cursor it still holds, and refuses what it cannot replay whole.
import { describe, expect, test } from "bun:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { EventBuffer } from "../../src/transports/event-store.ts";

const note = (n: number): JSONRPCMessage => ({
	jsonrpc: "2.0",
	method: "notifications/progress",
	params: { n },
});

async function replayed(store: ReturnType<EventBuffer["forSession"]>["store"], after: string) {
	const got: [string, JSONRPCMessage][] = [];
	const stream = await store.replayEventsAfter(after, {
		send: async (id, message) => {
			got.push([id, message]);
		},
	});
	return { stream, got };
}

describe("EventBuffer", () => {
	test("replays what came after the cursor on the cursor's stream only, without the priming event", async () => {
		const buffer = new EventBuffer({ maxEvents: 100, maxChars: 100_000, maxEventChars: 10_000 });
		const { store } = buffer.forSession();
		const primed = await store.storeEvent("post-1", {} as JSONRPCMessage);
		const a = await store.storeEvent("post-1", note(1));
		await store.storeEvent("_GET_stream", note(2));
		const b = await store.storeEvent("post-1", note(3));
		expect(await store.getStreamIdForEventId?.(primed)).toBe("post-1");
		const { stream, got } = await replayed(store, primed);
		expect(stream).toBe("post-1");
		expect(got).toEqual([
			[a, note(1)],
			[b, note(3)],
		]);
	});

	test("another session's event ids are unknown: no stream, no replay", async () => {
		const buffer = new EventBuffer({ maxEvents: 100, maxChars: 100_000, maxEventChars: 10_000 });
		const mine = buffer.forSession().store;
		const theirs = buffer.forSession().store;
		const id = await mine.storeEvent("s", note(1));
		expect(await theirs.getStreamIdForEventId?.(id)).toBeUndefined();
		await expect(replayed(theirs, id)).rejects.toThrow(/unknown or no longer kept/);
		for (const bad of ["", "0", "01", "1e3", "-1", "x", "9".repeat(17)])
			expect(await mine.getStreamIdForEventId?.(bad)).toBeUndefined();
	});

	test("stays within its event and size limits however much is stored; an evicted cursor is refused", async () => {
		const limits = { maxEvents: 50, maxChars: 2000, maxEventChars: 1000 };
		const buffer = new EventBuffer(limits);
		const one = buffer.forSession().store;
		const two = buffer.forSession().store;
		const first = await one.storeEvent("s", note(0));
		for (let i = 1; i < 5000; i++) {
			await (i % 2 ? two : one).storeEvent(`s${i % 7}`, note(i));
			expect(buffer.size.events).toBeLessThanOrEqual(limits.maxEvents);
			expect(buffer.size.chars).toBeLessThanOrEqual(limits.maxChars);
		}
		await expect(replayed(one, first)).rejects.toThrow(/no longer kept/);
	});

	test("an event too large to keep makes a resume across it fail instead of skipping it", async () => {
		const buffer = new EventBuffer({ maxEvents: 100, maxChars: 100_000, maxEventChars: 100 });
		const { store } = buffer.forSession();
		const cursor = await store.storeEvent("s", note(1));
		await store.storeEvent("s", { jsonrpc: "2.0", id: 1, result: { text: "x".repeat(200) } });
		expect(buffer.size.chars).toBeLessThan(100);
		await expect(replayed(store, cursor)).rejects.toThrow(/too large/);
	});

	test("a closed session's events are dropped at once", async () => {
		const buffer = new EventBuffer({ maxEvents: 100, maxChars: 100_000, maxEventChars: 10_000 });
		const gone = buffer.forSession();
		const kept = buffer.forSession();
		for (let i = 0; i < 10; i++) await gone.store.storeEvent("s", note(i));
		await kept.store.storeEvent("s", note(99));
		gone.drop();
		expect(buffer.size.events).toBe(1);
	});
});
