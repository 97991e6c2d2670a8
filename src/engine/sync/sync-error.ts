export class SyncError extends Error {
  override name = 'SyncError';
  constructor(
    message: string,
    /** The HTTP status, when the server answered. */
    readonly status?: number,
    /** The server could not be reached at all: worth trying again later. */
    readonly offline = false,
  ) {
    super(message);
  }
}
