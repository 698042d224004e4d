// Canonical JSON (object keys sorted at every depth), so equal arguments hash equally whatever order
// a client wrote them in.

export function canonicalJson(value: unknown): string {
	return JSON.stringify(value, (_key, v) =>
		typeof v === "object" && v !== null && !Array.isArray(v)
			? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
			: v,
	);
}

export const sha256 = (data: string | Uint8Array): string =>
	new Bun.CryptoHasher("sha256").update(data).digest("hex");
