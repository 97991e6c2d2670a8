export interface Logger {
  info(message: string): void;
  error(message: string): void;
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
