import { z } from 'zod';
import { defineEvent } from './define.ts';

/** A kept text's name: the first 128 bits of its SHA-256, in hex. */
export const promptTextHash = z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 hex digits');

/**
 * A system part's words (the card, a lore entry, the persona) kept once per chat, where every
 * reply's "Why this reply?" report used to carry them again: a 6,000-character card was 6 KB more
 * in the log at every reply, most of what a long story stored. A report names the text by its hash
 * (`textHash`); this event holds it. It projects nothing: the log is where it is read from.
 */
export const promptTextKept = defineEvent({
  kind: 'prompt_text_kept',
  writes: [],
  scope: 'chat',
  schema: z.object({
    hash: promptTextHash,
    text: z.string().max(40_000),
  }),
  apply() {},
});

