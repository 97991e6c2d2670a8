/** A file that is not a card we can read: the message says which and why, for the player. Nothing is written. */
export class CardError extends Error {
  override name = 'CardError';
}

/** The largest card file read (a PNG with its art, a CHARX with its assets). */
export const MAX_CARD_BYTES = 20 * 1024 * 1024;
