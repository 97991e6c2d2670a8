import { z } from 'zod';
import { defineEvent, json } from '../events/define.ts';
import { shortText, uuid } from '../events/fields.ts';
import { MAX_LORE_CONTENT, MAX_LOREBOOK_ENTRIES } from './lorebook-file.ts';

/** One lorebook entry, as activation reads it (`LoreEntry`). */
export const loreEntrySchema = z.object({
  position: z.number().int().min(0).max(MAX_LOREBOOK_ENTRIES),
  name: z.string().max(200, 'a name longer than 200 characters').optional(),
  keys: z.array(z.string().max(500, 'a key is longer than 500 characters')).max(100, 'more than 100 keys'),
  secondaryKeys: z.array(z.string().max(500, 'a key is longer than 500 characters')).max(100, 'more than 100 keys'),
  selective: z.boolean(),
  logic: z.enum(['and_any', 'and_all', 'not_any', 'not_all']),
  content: z.string().max(MAX_LORE_CONTENT, `longer than the ${MAX_LORE_CONTENT.toLocaleString('en')} characters an entry holds`),
  enabled: z.boolean(),
  constant: z.boolean(),
  caseSensitive: z.boolean(),
  wholeWords: z.boolean(),
  scanDepth: z.number().int().min(0).max(1_000).nullable(),
  insertionOrder: z.number().finite(),
  placement: z.enum(['before_char', 'after_char']),
  probability: z.number().min(0).max(100),
  useProbability: z.boolean(),
  preventRecursion: z.boolean(),
  excludeRecursion: z.boolean(),
  ignoreBudget: z.boolean(),
});

export const lorebookSettings = z.object({
  scanDepth: z.number().int().min(0).max(1_000),
  tokenBudget: z.number().int().min(0).max(1_000_000),
  recursive: z.boolean(),
  maxRecursion: z.number().int().min(0).max(10),
});

/** A lorebook of its own (SillyTavern world info, a V3 lorebook), imported whole. */
export const lorebookAdded = defineEvent({
  kind: 'lorebook_added',
  writes: ['lorebooks', 'lore_entries'],
  scope: 'global',
  schema: z.object({
    lorebookId: uuid,
    name: shortText(120),
    /** 'app': made here, from nothing. */
    format: z.enum(['sillytavern', 'lorebook_v3', 'character_book', 'app']),
    settings: lorebookSettings,
    // A file brings at least one entry (readLorebookFile refuses an empty one); a lorebook made here starts with none.
    entries: z.array(loreEntrySchema).max(MAX_LOREBOOK_ENTRIES),
  }),
  apply(db, { seq, payload: p }) {
    db.run('INSERT INTO lorebooks (id, seq, name, format, settings) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING', [p.lorebookId, seq, p.name, p.format, json(p.settings)]);
    for (const entry of p.entries) {
      db.run('INSERT INTO lore_entries (book_id, position, entry) VALUES (?, ?, ?) ON CONFLICT DO NOTHING', [p.lorebookId, entry.position, json(entry)]);
    }
  },
});

/**
 * An entry as the player edited it on the Lore page (its words, its keys, or just on or off): in a
 * lorebook of its own (`lorebookId`), or in a bot's card book (`botId`), whose kept card is left as
 * it came and this entry read over it.
 */
export const loreEntrySaved = defineEvent({
  kind: 'lore_entry_saved',
  writes: ['lore_entries'],
  scope: 'global',
  schema: z
    .object({ lorebookId: uuid.optional(), botId: uuid.optional(), entry: loreEntrySchema })
    .refine((p) => (p.lorebookId === undefined) !== (p.botId === undefined), { message: 'names a lorebook or a bot, one of them', path: ['lorebookId'] }),
  apply(db, { seq, payload: p }) {
    db.run(
      `INSERT INTO lore_entries (book_id, position, entry, edited_seq) VALUES (?, ?, ?, ?)
       ON CONFLICT (book_id, position) DO UPDATE SET entry = excluded.entry, edited_seq = excluded.edited_seq`,
      [p.lorebookId ?? p.botId!, p.entry.position, json(p.entry), seq],
    );
  },
});

/** A lorebook attached to a chat (its entries fire there beside the bot's own), or taken off it. */
export const lorebookAttached = defineEvent({
  kind: 'lorebook_attached',
  writes: ['chat_lorebooks'],
  scope: 'chat',
  schema: z.object({ lorebookId: uuid, attached: z.boolean() }),
  apply(db, { chatId, payload: p }) {
    if (p.attached) db.run('INSERT INTO chat_lorebooks (chat_id, lorebook_id) VALUES (?, ?) ON CONFLICT DO NOTHING', [chatId, p.lorebookId]);
    else db.run('DELETE FROM chat_lorebooks WHERE chat_id = ? AND lorebook_id = ?', [chatId, p.lorebookId]);
  },
});

/** "Delete lorebook": it leaves the Lore page and every chat it was attached to. Its events stay in the log. */
export const lorebookRemoved = defineEvent({
  kind: 'lorebook_removed',
  writes: ['lorebooks', 'lore_entries', 'chat_lorebooks'],
  scope: 'global',
  schema: z.object({ lorebookId: uuid }),
  apply(db, { payload: p }) {
    db.run('DELETE FROM lorebooks WHERE id = ?', [p.lorebookId]);
    db.run('DELETE FROM lore_entries WHERE book_id = ?', [p.lorebookId]);
    db.run('DELETE FROM chat_lorebooks WHERE lorebook_id = ?', [p.lorebookId]);
  },
  applyToChat(db, { payload: p }, chatId) {
    db.run('DELETE FROM chat_lorebooks WHERE chat_id = ? AND lorebook_id = ?', [chatId, p.lorebookId]);
  },
});
