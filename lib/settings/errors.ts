/**
 * A setting the environment gives that cannot be used. One message wherever it is read — by
 * `ca-admin`, by `createCaApiRouter` (which reports it as an `OptionsError`) and by the example
 * server — naming the variable, what it accepts and what it got (docs/reference/environment.md).
 */
export class SettingsError extends Error {
  constructor(
    /** The environment variable, e.g. `CA_URL_PATH`. */
    readonly variable: string,
    /** What is wrong, after the variable's name: `must be true/false, … (got "maybe")`. */
    problem: string,
  ) {
    // A problem may go on with ': …' (where in a JSON value the mistake is) rather than a verb.
    super(`environment variable ${variable}${problem.startsWith(':') ? '' : ' '}${problem}`);
    this.name = 'SettingsError';
  }
}

/** An environment value as an error message shows it (quoted, so that spaces and '' are visible). */
export const shown = (raw: string): string => JSON.stringify(raw);
