/** A command's event failed validation: nothing was written. The message names kind, field and rule. */
export class EventValidationError extends Error {
  constructor(
    readonly kind: string,
    readonly issues: readonly { path: string; message: string }[],
  ) {
    super(`Invalid ${kind} event: ${issues.map((i) => (i.path ? `${i.path}: ${i.message}` : i.message)).join('; ')}`);
    this.name = 'EventValidationError';
  }
}

export class UnknownEventKindError extends Error {
  constructor(readonly kind: string) {
    super(`Unknown event kind "${kind.slice(0, 60)}": this version of the app does not know it (it may come from a newer one)`);
    this.name = 'UnknownEventKindError';
  }
}

/** A command that cannot apply to the current state (undoing a rewind that is not the latest, ...). */
export class CommandRejectedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandRejectedError';
  }
}
