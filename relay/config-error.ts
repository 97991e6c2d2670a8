/** A setting the relay cannot start with; the message names the variable and what it got. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
