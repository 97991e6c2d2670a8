import type { Db } from '../db/port.ts';
import { parseCardJson } from '../cards/card-json.ts';
import { keyProblem, lorebookOf, type LoreEntry, type Lorebook } from './activation.ts';
import { keptCard } from '../authoring/queries.ts';
import { z } from 'zod';
import { defineQuery, id, none } from '../call.ts';
import { toWorldInfo } from './world-info.ts';

/** A lorebook the Lore page names: one of its own, or a bot's card book. */
export type LorebookRef = { lorebookId: string } | { botId: string };

export interface LorebookSummary {
  ref: LorebookRef;
  name: string;
  /** 'lorebook': imported on its own; 'made': made here ("New lorebook"); 'card': came with a bot's card. */
  kind: 'lorebook' | 'made' | 'card';
  /** The bot whose card it came with (two cards' books often share a name, "Eldoria"). */
  owner?: string;
  entries: number;
  enabled: number;
}

/**
 * A bot's card book as it came, by the id of the card_kept event that holds it (unique everywhere,
 * unlike a seq, which another database or a restore reuses): a kept card never changes, so it is
 * parsed once, not on every reply.
 */
const cardBooks = new Map<string, { name: string; book: Lorebook } | null>();
function cardBook(db: Db, botId: string): { name: string; book: Lorebook } | null {
  const id = db.get<{ id: string }>('SELECT e.id FROM bot_cards c JOIN events e ON e.seq = c.seq WHERE c.bot_id = ?', [botId])?.id;
  if (id === undefined) return null;
  if (!cardBooks.has(id)) {
    const kept = keptCard(db, botId)!;
    const { data, original } = parseCardJson(JSON.stringify(kept));
    const rawBook = ((original.data as Record<string, unknown> | undefined)?.character_book ?? original.character_book) as Record<string, unknown>;
    if (cardBooks.size > 50) cardBooks.clear();
    cardBooks.set(id, data.book?.entries.length ? { name: data.book.name, book: lorebookOf(data.book, rawBook) } : null);
  }
  return cardBooks.get(id) ?? null;
}

/** The entries the player saved over a book (all of a lorebook's own, a card book's edited ones), by position. */
function savedEntries(db: Db, bookId: string): Map<number, { entry: LoreEntry; edited: boolean }> {
  return new Map(
    db
      .all<{ position: number; entry: string; edited_seq: number | null }>('SELECT position, entry, edited_seq FROM lore_entries WHERE book_id = ? ORDER BY position', [bookId])
      .map((r) => [r.position, { entry: JSON.parse(r.entry) as LoreEntry, edited: r.edited_seq !== null }]),
  );
}

/** A book's entries as they fire now, with which the player changed; null when there is no such book. */
function entriesOf(db: Db, ref: LorebookRef): { name: string; kind: 'lorebook' | 'card'; settings: Omit<Lorebook, 'entries'>; entries: (LoreEntry & { edited: boolean })[] } | null {
  if ('botId' in ref) {
    const card = cardBook(db, ref.botId);
    const bot = db.get<{ name: string }>('SELECT name FROM bots WHERE id = ? AND deleted_ts IS NULL', [ref.botId]);
    if (!card || !bot) return null;
    const saved = savedEntries(db, ref.botId);
    const { entries, ...settings } = card.book;
    return {
      name: card.name || `${bot.name}’s lorebook`,
      kind: 'card',
      settings,
      entries: entries.map((e) => {
        const over = saved.get(e.position);
        return over ? { ...over.entry, edited: true } : { ...e, edited: false };
      }),
    };
  }
  const book = db.get<{ id: string; name: string; settings: string; version: string }>(
    `SELECT e.id, l.name, l.settings,
       (SELECT count(*) || ':' || coalesce(max(x.id), '') FROM lore_entries le JOIN events x ON x.seq = le.edited_seq WHERE le.book_id = l.id) AS version
     FROM lorebooks l JOIN events e ON e.seq = l.seq WHERE l.id = ?`,
    [ref.lorebookId],
  );
  if (!book) return null;
  // Parsed once per version (its lorebook_added event, and its edits by event id: a local seq is
  // reused by another database), not on every reply.
  const key = `${book.id}:${book.version}`;
  let entries = ownBooks.get(key);
  if (!entries) {
    entries = [...savedEntries(db, ref.lorebookId).values()].map((s) => ({ ...s.entry, edited: s.edited }));
    if (ownBooks.size > 20) ownBooks.clear();
    ownBooks.set(key, entries);
  }
  return { name: book.name, kind: 'lorebook', settings: JSON.parse(book.settings) as Omit<Lorebook, 'entries'>, entries };
}

const ownBooks = new Map<string, (LoreEntry & { edited: boolean })[]>();

/** Every lorebook here: those of their own first, then the bots' card books, each with its counts. */
export function listLorebooks(db: Db): LorebookSummary[] {
  const own = db
    .all<{ id: string; name: string; format: string; entries: number; enabled: number }>(
      `SELECT l.id, l.name, l.format, count(e.position) AS entries, coalesce(sum(json_extract(e.entry, '$.enabled')), 0) AS enabled
       FROM lorebooks l LEFT JOIN lore_entries e ON e.book_id = l.id GROUP BY l.id ORDER BY l.name COLLATE NOCASE, l.seq`,
    )
    .map((r): LorebookSummary => ({ ref: { lorebookId: r.id }, name: r.name, kind: r.format === 'app' ? 'made' : 'lorebook', entries: r.entries, enabled: r.enabled }));
  const cards = db
    .all<{ bot_id: string; bot_name: string }>(
      'SELECT c.bot_id, b.name AS bot_name FROM bot_cards c JOIN bots b ON b.id = c.bot_id WHERE b.deleted_ts IS NULL ORDER BY b.name COLLATE NOCASE',
    )
    .flatMap((r): LorebookSummary[] => {
      const book = entriesOf(db, { botId: r.bot_id });
      return book
        ? [{ ref: { botId: r.bot_id }, name: book.name, kind: 'card', owner: r.bot_name, entries: book.entries.length, enabled: book.entries.filter((e) => e.enabled).length }]
        : [];
    });
  return [...own, ...cards];
}

/** One lorebook with its entries, for its Lore page; null when it does not exist. */
export function lorebookDetail(
  db: Db,
  ref: LorebookRef,
): (LorebookSummary & { settings: Omit<Lorebook, 'entries'>; entryList: (LoreEntry & { edited: boolean; keyProblems: { key: string; problem: string }[] })[] }) | null {
  const book = entriesOf(db, ref);
  if (!book) return null;
  return {
    ref,
    name: book.name,
    kind: book.kind,
    entries: book.entries.length,
    enabled: book.entries.filter((e) => e.enabled).length,
    settings: book.settings,
    // A key the lore engine cannot run never fires: the entry says which and why.
    entryList: book.entries.map((entry) => ({
      ...entry,
      keyProblems: [...entry.keys, ...entry.secondaryKeys].flatMap((key) => {
        const problem = keyProblem(key);
        return problem ? [{ key, problem }] : [];
      }),
    })),
  };
}

/** A book as activation reads it, the player's edits in force. */
export function lorebookForPrompt(db: Db, ref: LorebookRef): Lorebook | null {
  const book = entriesOf(db, ref);
  return book ? { ...book.settings, entries: book.entries } : null;
}

/** The lorebooks of their own, each with whether it is attached to this chat (the drawer's list). */
export function chatLorebooks(db: Db, chatId: string): { lorebookId: string; name: string; attached: boolean }[] {
  return db
    .all<{ id: string; name: string; attached: number }>(
      `SELECT l.id, l.name, EXISTS (SELECT 1 FROM chat_lorebooks c WHERE c.chat_id = ? AND c.lorebook_id = l.id) AS attached
       FROM lorebooks l ORDER BY l.name COLLATE NOCASE, l.seq`,
      [chatId],
    )
    .map((r) => ({ lorebookId: r.id, name: r.name, attached: r.attached === 1 }));
}

/** The standalone lorebooks attached to a chat, for its prompt. */
export function attachedLorebooks(db: Db, chatId: string): string[] {
  return db.all<{ lorebook_id: string }>('SELECT lorebook_id FROM chat_lorebooks WHERE chat_id = ? ORDER BY lorebook_id', [chatId]).map((r) => r.lorebook_id);
}

/** The entries of a bot's card book that the player edited here, for the card an export writes. */
export function editedCardLore(db: Db, botId: string): LoreEntry[] {
  return db
    .all<{ entry: string }>('SELECT entry FROM lore_entries WHERE book_id = ? AND edited_seq IS NOT NULL ORDER BY position', [botId])
    .map((r) => JSON.parse(r.entry) as LoreEntry);
}

/** A lorebook of its own, or a bot's card book. */
export const lorebookRef = z.union([z.object({ lorebookId: id }).strict(), z.object({ botId: id }).strict()]);

export const loreQueryCalls = {
  /** The Lore page: lorebooks of their own and the bots' card books, with their entries. */
  listLorebooks: defineQuery({ args: none, reads: ['lorebooks', 'lore_entries', 'bot_cards', 'bots'], run: ({ db }) => listLorebooks(db) }),
  lorebook: defineQuery({ args: z.tuple([lorebookRef]), reads: ['lorebooks', 'lore_entries', 'bot_cards', 'bots'], run: ({ db }, ref) => lorebookDetail(db, ref) }),
  /** A lorebook as a SillyTavern world info file (its text), the player's edits in; null when it is gone. */
  lorebookAsWorldInfo: defineQuery({
    args: z.tuple([lorebookRef]),
    reads: ['lorebooks', 'lore_entries', 'bot_cards', 'bots'],
    run: ({ db }, ref) => {
      const book = lorebookDetail(db, ref);
      return book && { fileName: `${book.name.replace(/[\\/:*?"<>|]+/g, ' ').trim() || 'Lorebook'}.json`, text: toWorldInfo({ name: book.name, settings: book.settings, entries: book.entryList }) };
    },
  }),
  /** The lorebooks that can be attached to this chat, and which are. */
  chatLorebooks: defineQuery({ args: z.tuple([id]), reads: ['lorebooks', 'chat_lorebooks'], run: ({ db }, chatId) => chatLorebooks(db, chatId) }),
};
