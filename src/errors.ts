// One error type for every tool failure. Transports render it; nothing else invents error shapes.
import { clip } from "./domain/text.ts";

/** The longest message an error carries; the echoes in it are cut shorter (domain/did-you-mean.ts). */
const MAX_MESSAGE = 2000;

export const ERROR_CODES = [
	"invalid_argument",
	"not_found",
	"already_exists",
	"conflict",
	"failed_precondition",
	"permission_denied",
	"unauthenticated",
	"resource_exhausted",
	"deadline_exceeded",
	"cancelled",
	"internal",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

export type ErrorDetails = Record<string, unknown>;

export class ToolError extends Error {
	readonly code: ErrorCode;
	readonly details: ErrorDetails | undefined;

	constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
		// A last bound for a message that quotes caller input somewhere nobody clipped it.
		super(clip(message, MAX_MESSAGE));
		this.name = "ToolError";
		this.code = code;
		this.details = details;
	}

	toJSON(): { code: ErrorCode; message: string; details?: ErrorDetails } {
		return this.details === undefined
			? { code: this.code, message: this.message }
			: { code: this.code, message: this.message, details: this.details };
	}
}

export const invalidArgument = (message: string, details?: ErrorDetails) =>
	new ToolError("invalid_argument", message, details);

export const notFound = (message: string, details?: ErrorDetails) =>
	new ToolError("not_found", message, details);

export const conflict = (message: string, details?: ErrorDetails) =>
	new ToolError("conflict", message, details);

export const failedPrecondition = (message: string, details?: ErrorDetails) =>
	new ToolError("failed_precondition", message, details);

/** Turns anything thrown into a ToolError; SQLite lock timeouts become a retryable code. */
export function asToolError(err: unknown): ToolError {
	if (err instanceof ToolError) return err;
	const code = (err as { code?: unknown } | null)?.code;
	if (typeof code === "string" && code.startsWith("SQLITE_BUSY")) {
		return new ToolError("deadline_exceeded", "the database stayed locked by another writer; try again");
	}
	if ((err as { name?: unknown } | null)?.name === "AbortError") {
		return new ToolError("cancelled", "the call was cancelled");
	}
	const message = err instanceof Error ? err.message : String(err);
	return new ToolError("internal", `internal error: ${message}`);
}
