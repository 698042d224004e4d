// The environment a test run's command gets: the allowlisted variables, never Roundtable's own, and
// the run's id, which marks its processes so the sweep after a crash can find and stop them.

/** In a test's environment: the run's id, which tests may read and which marks its processes. */
export const RUN_ID_VARIABLE = "ROUNDTABLE_TEST_RUN_ID";

/** What every test run gets of the operator's environment, whatever tests.env_allowlist says. */
export const BASE_TEST_ENV = ["PATH", "HOME", "LANG", "TZ", "TERM", "CI"];

/** The environment a test sees: the base and the allowlisted variables, never Roundtable's own (its token). */
export function testEnv(allowlist: readonly string[]): Record<string, string> {
	const env: Record<string, string> = {};
	for (const name of new Set([...BASE_TEST_ENV, ...allowlist])) {
		const value = process.env[name];
		if (value !== undefined && !name.startsWith("ROUNDTABLE_")) env[name] = value;
	}
	return env;
}
