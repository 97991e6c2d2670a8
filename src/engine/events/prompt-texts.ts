import { z } from 'zod';
import { defineEvent } from './define.ts';

/** How many kept texts a text's slices may reach back through: reading one reads at most this many. */
export const MAX_DELTA_DEPTH = 16;

/** A kept text's name: the first 128 bits of its SHA-256, in hex. */
export const promptTextHash = z.string().regex(/^[0-9a-f]{32}$/, 'must be 32 hex digits');

/**
 * A system part's words (the card, a lore entry, the persona) kept once per chat, where every
 * reply's "Why this reply?" report used to carry them again: a 6,000-character card was 6 KB more
 * in the log at every reply, most of what a long story stored. A report names the text by its hash
 * (`textHash`); this event holds it, or what it shares with a text kept before it. It projects
 * nothing: the log is where it is read from.
 */
export const promptTextKept = defineEvent({
  kind: 'prompt_text_kept',
  writes: [],
  scope: 'chat',
  schema: z.union([
    z.object({
      hash: promptTextHash,
      text: z.string().max(40_000),
    }),
    // The text as slices of one kept before it in the chat (`base`, found by its hash) and words
    // (`turn/text-delta.ts`): the feelings or threads a reply was told differ from the last
    // reply's by a fact. `depth`: how many bases back a whole text is, at most MAX_DELTA_DEPTH.
    z.object({
      hash: promptTextHash,
      base: promptTextHash,
      depth: z.number().int().min(1).max(MAX_DELTA_DEPTH),
      delta: z.array(z.union([z.string().max(40_000), z.tuple([z.number().int().min(0).max(40_000), z.number().int().min(0).max(40_000)])])).max(10_000),
    }),
  ]),
  apply() {},
});

