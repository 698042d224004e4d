// The environment a test run's command gets: the allowlisted variables, never Roundtable's own, and
// the run's id, which marks its processes so the sweep after a crash can find and stop them.

/** In a test's environment: the run's id, which tests may read and which marks its processes. */
export const RUN_ID_VARIABLE = "ROUNDTABLE_TEST_RUN_ID";

/** The environment a test sees: the allowlisted variables, never Roundtable's own (its token). */
export function testEnv(allowlist: readonly string[]): Record<string, string> {
	const env: Record<string, string> = {};
	for (const name of allowlist) {
		const value = process.env[name];
		if (value !== undefined && !name.startsWith("ROUNDTABLE_")) env[name] = value;
	}
	return env;
}
