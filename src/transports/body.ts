// Reading a request body with bounds, for every HTTP endpoint (MCP and the dashboard): at most
// `limit` bytes, arriving by `deadline`. Bun's own timer is not reset by body bytes, so it could not
// tell a slow upload from a stalled one. Each caller says a failure in its own wire form.

export type BodyFailure = "too_big" | "late" | "unreadable";

/** The body as text, or why it could not be had; a stream cut short is cancelled. */
export async function readBounded(
	req: Request,
	limit: number,
	deadline: number,
): Promise<{ text: string } | { failure: BodyFailure }> {
	const length = req.headers.get("content-length");
	if (Number(length ?? "0") > limit) return { failure: "too_big" };
	if (!req.body) return { text: "" };
	let timer: Timer | undefined;
	const late = new Promise<"late">((resolve) => {
		timer = setTimeout(() => resolve("late"), Math.max(0, deadline - Date.now()));
	});
	// A declared length within the limit: Bun holds the body to exactly that many bytes, so it is
	// read whole (natively, without a read per chunk); only the deadline can still fail it.
	if (length !== null) {
		try {
			const text = await Promise.race([req.text(), late]);
			return text === "late" ? { failure: "late" } : { text };
		} catch {
			return { failure: "unreadable" };
		} finally {
			clearTimeout(timer);
		}
	}
	const reader = req.body.getReader();
	const parts: Uint8Array[] = [];
	let size = 0;
	const fail = (failure: BodyFailure) => {
		void reader.cancel().catch(() => {});
		return { failure };
	};
	try {
		for (;;) {
			const next = await Promise.race([reader.read(), late]);
			if (next === "late") return fail("late");
			if (next.done) break;
			size += next.value.byteLength;
			if (size > limit) return fail("too_big");
			parts.push(next.value);
		}
	} catch {
		return fail("unreadable");
	} finally {
		clearTimeout(timer);
	}
	return { text: Buffer.concat(parts).toString("utf8") };
}
