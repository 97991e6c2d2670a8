export interface Logger {
  info(message: string): void;
  error(message: string): void;
}

/** Replaces every occurrence of the secrets in `text`; the key never leaves the relay, even in errors. */
export function scrubber(secrets: readonly string[]): (text: string) => string {
  const present = secrets.filter((s) => s.length >= 4);
  if (present.length === 0) return (text) => text;
  return (text) => present.reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}

/** Every line goes through the scrubber, so no code path can log the key by accident. */
export function scrubbedLogger(sink: Logger, scrub: (text: string) => string): Logger {
  return {
    info: (message) => sink.info(scrub(message)),
    error: (message) => sink.error(scrub(message)),
  };
}

export const consoleLogger: Logger = {
  info: (message) => console.log(message),
  error: (message) => console.error(message),
};
