/** A configuration value the relay cannot start with; the message names the key and what is allowed. */
export class ConfigError extends Error {
  constructor(key: string, allowed: string, got?: unknown) {
    super(
      `Invalid configuration ${key}: expected ${allowed}` +
        (got === undefined ? '' : `, got ${JSON.stringify(got)}`),
    );
    this.name = 'ConfigError';
  }
}
