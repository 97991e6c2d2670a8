import type { FieldDef } from '../state/fields.ts';
import { bookOf, CARD_EXTENSION, parseCardJson } from './card-json.ts';
import { loreEntry, LOGICS, type LoreEntry } from '../lore/activation.ts';
import { botFromCard } from './card-to-bot.ts';
import { z } from 'zod';
import { defineQuery, id } from '../call.ts';
import { CommandRejectedError } from '../log/errors.ts';
import { getBot, getImage, keptCard } from '../authoring/queries.ts';
import { editedCardLore } from '../lore/queries.ts';

/** The bot as the app holds it: what an export writes into the card. */
export interface ExportedBot {
  name: string;
  persona: string;
  kickoff: string;
  greetings: string[];
  voiceSamples: string[];
  trackedFields?: FieldDef[];
}

/** Fields only V3 has: left out of the V2 copy written beside it for older apps. */
const V3_ONLY = ['assets', 'nickname', 'creator_notes_multilingual', 'source', 'group_only_greetings', 'creation_date', 'modification_date'];

/**
 * The bot as a card: V3, and a V2 copy for apps that read only `chara`. Start from the card the bot
 * came from, kept whole, and write into it only what was edited here (a field whose value is what
 * the import made of the card stays as the card had it): a card exported unedited is the card
 * imported, extensions, assets and unknown keys included.
 */
export function cardForExport(
  bot: ExportedBot,
  kept: Record<string, unknown> | null,
  loreEdits: readonly LoreEntry[] = [],
): { v3: Record<string, unknown>; v2: Record<string, unknown> } {
  const original = kept ?? {};
  const parsed = kept ? parseCardJson(JSON.stringify(kept)) : null;
  const base: Record<string, unknown> = parsed
    ? parsed.spec === 'chara_card_v1'
      ? { ...original }
      : { ...(original.data as Record<string, unknown>) }
    : {
        name: '',
        description: '',
        personality: '',
        scenario: '',
        first_mes: '',
        mes_example: '',
        creator_notes: '',
        system_prompt: '',
        post_history_instructions: '',
        alternate_greetings: [],
        tags: [],
        creator: '',
        character_version: '',
        extensions: {},
      };
  const before = parsed ? botFromCard(parsed.data) : null;
  const data: Record<string, unknown> = { ...base };
  if (!before || bot.name !== before.name) data.name = bot.name;
  if (!before || bot.persona !== before.persona) {
    data.description = bot.persona;
    data.personality = '';
  }
  if (!before || bot.kickoff !== before.kickoff) data.scenario = bot.kickoff;
  if (!before || JSON.stringify(bot.greetings) !== JSON.stringify(before.greetings)) {
    data.first_mes = bot.greetings[0] ?? bot.kickoff;
    data.alternate_greetings = bot.greetings.slice(1);
  }
  if (!before || JSON.stringify(bot.voiceSamples) !== JSON.stringify(before.voiceSamples)) {
    data.mes_example = bot.voiceSamples.length ? `<START>\n${bot.voiceSamples.map((line) => `{{char}}: ${line}`).join('\n')}` : '';
  }
  // The fields its chats track go in this app's own extension, beside whatever else the card's extensions hold.
  if (JSON.stringify(bot.trackedFields ?? []) !== JSON.stringify(before?.trackedFields ?? [])) {
    const extensions = typeof data.extensions === 'object' && data.extensions !== null ? (data.extensions as Record<string, unknown>) : {};
    const ours = typeof extensions[CARD_EXTENSION] === 'object' && extensions[CARD_EXTENSION] !== null ? (extensions[CARD_EXTENSION] as Record<string, unknown>) : {};
    data.extensions = { ...extensions, [CARD_EXTENSION]: { ...ours, tracked_fields: bot.trackedFields ?? [] } };
  }
  if (loreEdits.length && typeof data.character_book === 'object' && data.character_book !== null) {
    data.character_book = withLoreEdits(data.character_book as Record<string, unknown>, loreEdits);
  }
  for (const [field, empty] of [['alternate_greetings', []], ['tags', []], ['extensions', {}], ['creator_notes', ''], ['system_prompt', ''], ['post_history_instructions', ''], ['creator', ''], ['character_version', '']] as const) {
    if (data[field] === undefined) data[field] = empty;
  }
  const unchanged = parsed && JSON.stringify(data) === JSON.stringify(base);
  const v3 =
    unchanged && parsed.spec === 'chara_card_v3'
      ? original
      : { ...(parsed?.spec === 'chara_card_v3' ? original : {}), spec: 'chara_card_v3', spec_version: '3.0', data: { group_only_greetings: [], ...data } };
  const v2Data = Object.fromEntries(Object.entries(data).filter(([key]) => !V3_ONLY.includes(key)));
  const v2 = unchanged && parsed.spec === 'chara_card_v2' ? original : { spec: 'chara_card_v2', spec_version: '2.0', data: v2Data };
  return { v3, v2 };
}

type RawEntry = Record<string, unknown> & { extensions?: Record<string, unknown> };

/** Where each part of an entry lives in a card's book entry: its own fields, or SillyTavern's extensions. */
const WRITE_BACK: { [K in keyof LoreEntry]?: (raw: RawEntry, ext: Record<string, unknown>, value: LoreEntry[K]) => void } = {
  name: (raw, _ext, v) => {
    if ('comment' in raw) raw.comment = v;
    else raw.name = v;
  },
  keys: (raw, _ext, v) => {
    raw.keys = v;
    if ('key' in raw) raw.key = v;
  },
  secondaryKeys: (raw, _ext, v) => {
    raw.secondary_keys = v;
    if ('keysecondary' in raw) raw.keysecondary = v;
  },
  content: (raw, _ext, v) => void (raw.content = v),
  enabled: (raw, _ext, v) => {
    raw.enabled = v;
    if ('disable' in raw) raw.disable = !v;
  },
  constant: (raw, _ext, v) => void (raw.constant = v),
  selective: (raw, _ext, v) => void (raw.selective = v),
  insertionOrder: (raw, _ext, v) => void (raw.insertion_order = v),
  placement: (raw, ext, v) => {
    raw.position = v;
    if (typeof ext.position === 'number') ext.position = v === 'after_char' ? 1 : 0;
  },
  caseSensitive: (raw, _ext, v) => void (raw.case_sensitive = v),
  logic: (_raw, ext, v) => void (ext.selectiveLogic = LOGICS.indexOf(v)),
  wholeWords: (_raw, ext, v) => void (ext.match_whole_words = v),
  probability: (_raw, ext, v) => void (ext.probability = v),
  useProbability: (_raw, ext, v) => void (ext.useProbability = v),
  scanDepth: (_raw, ext, v) => void (ext.scan_depth = v),
  preventRecursion: (_raw, ext, v) => void (ext.prevent_recursion = v),
  excludeRecursion: (_raw, ext, v) => void (ext.exclude_recursion = v),
  ignoreBudget: (_raw, ext, v) => void (ext.ignore_budget = v),
};

/**
 * The card's book with the entries edited here written in: only the parts that differ from what
 * the card said, so everything else an entry carries (ids, extensions the app does not read)
 * stays as it came.
 */
function withLoreEdits(book: Record<string, unknown>, edits: readonly LoreEntry[]): Record<string, unknown> {
  const read = bookOf(book);
  if (!read) return book;
  const byPosition = new Map(edits.map((e) => [e.position, e]));
  const rewrite = (value: unknown, position: number): unknown => {
    const edit = byPosition.get(position);
    const entry = read.entries[position];
    if (!edit || !entry || typeof value !== 'object' || value === null) return value;
    const before = loreEntry(entry);
    const raw: RawEntry = { ...(value as RawEntry) };
    const ext = { ...(typeof raw.extensions === 'object' && raw.extensions !== null ? raw.extensions : {}) };
    for (const field of Object.keys(WRITE_BACK) as (keyof LoreEntry)[]) {
      const differs = field === 'name' ? (edit.name ?? '') !== (before.name ?? '') : JSON.stringify(edit[field]) !== JSON.stringify(before[field]);
      if (differs) (WRITE_BACK[field] as (r: RawEntry, e: Record<string, unknown>, v: unknown) => void)(raw, ext, edit[field]);
    }
    if (Object.keys(ext).length) raw.extensions = ext;
    return raw;
  };
  const entries = book.entries;
  if (Array.isArray(entries)) return { ...book, entries: entries.map(rewrite) };
  if (typeof entries === 'object' && entries !== null) {
    // Entries keyed by id: positions follow the keys' order, as the reader reads them.
    return { ...book, entries: Object.fromEntries(Object.entries(entries).map(([key, value], i) => [key, rewrite(value, i)])) };
  }
  return book;
}

export const cardExportCalls = {
  /** The bot as a character card to save (V3, and a V2 copy), its kept card updated with what was edited here. */
  exportCard: defineQuery({
    args: z.tuple([id]),
    reads: ['bots', 'bot_cards', 'lore_entries', 'images'],
    run({ db }, botId) {
      const bot = getBot(db, botId);
      if (!bot) throw new CommandRejectedError('That bot does not exist.');
      // Its background goes with it as the card's own background asset (written in by the page, per format).
      const background = bot.background ? (getImage(db, bot.background) ?? null) : null;
      return { name: bot.name, avatar: bot.avatar, background, ...cardForExport(bot, keptCard(db, botId), editedCardLore(db, botId)) };
    },
  }),
  /** What the card a bot came from says about itself (its creator's notes are for the player, never the prompt). */
  botCardInfo: defineQuery({
    args: z.tuple([id]),
    reads: ['bot_cards'],
    run({ db }, botId) {
      const kept = keptCard(db, botId);
      if (!kept) return null;
      const { spec, data } = parseCardJson(JSON.stringify(kept));
      return { spec, creator: data.creator, creatorNotes: data.creatorNotes, tags: data.tags, characterVersion: data.characterVersion, lorebookEntries: data.book?.entries.length ?? 0 };
    },
  }),
};
