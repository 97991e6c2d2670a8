import { fromBase64 } from '../base64.ts';
import { CardError, jsonTooDeep, MAX_JSON_DEPTH } from './errors.ts';
import { fieldDef, type FieldDef } from '../state/fields.ts';

/** The key of this app's own data in a card's `extensions`. */
export const CARD_EXTENSION = 'roleplay_engine';

/** One lorebook entry as the card holds it, keyed by its position (ids in the wild repeat or are missing). */
export interface CardBookEntry {
  position: number;
  keys: string[];
  secondaryKeys: string[];
  content: string;
  enabled: boolean;
  constant: boolean;
  selective: boolean;
  insertionOrder: number;
  /** Everything else the entry carries, untouched. */
  raw: Record<string, unknown>;
}

/** What the app reads from a card, whatever its version; the whole original is kept beside it. */
export interface CardData {
  name: string;
  nickname: string;
  description: string;
  personality: string;
  scenario: string;
  firstMessage: string;
  alternateGreetings: string[];
  exampleMessages: string;
  systemPrompt: string;
  postHistoryInstructions: string;
  creator: string;
  creatorNotes: string;
  tags: string[];
  characterVersion: string;
  book: { name: string; entries: CardBookEntry[] } | null;
  /** The fields of the player's own its chats start with: this app's extension (`extensions.roleplay_engine.tracked_fields`); malformed ones are left out. */
  trackedFields: FieldDef[];
}

export interface ParsedCard {
  spec: 'chara_card_v1' | 'chara_card_v2' | 'chara_card_v3';
  data: CardData;
  /** The card as it came: written back on export, so fields the app does not use survive. */
  original: Record<string, unknown>;
  /** Said to the player in the preview: an empty name to fill in, a field of an odd shape taken as best it could be. */
  warnings: string[];
}

const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');
const list = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : typeof value === 'string' && value.trim() ? [value] : [];

/** A `character_book` (or a lorebook's data, or SillyTavern's world info) read leniently: entries keyed by position. */
export function bookOf(value: unknown): CardData['book'] {
  if (typeof value !== 'object' || value === null) return null;
  const book = value as Record<string, unknown>;
  const entries = Array.isArray(book.entries) ? book.entries : typeof book.entries === 'object' && book.entries ? Object.values(book.entries) : [];
  return {
    name: text(book.name),
    entries: entries
      .filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null)
      .map((e, position) => ({
        position,
        keys: list(e.keys ?? e.key),
        secondaryKeys: list(e.secondary_keys ?? e.keysecondary),
        content: text(e.content),
        enabled: e.enabled !== false && e.disable !== true,
        constant: e.constant === true,
        selective: e.selective === true,
        insertionOrder: typeof e.insertion_order === 'number' ? e.insertion_order : typeof e.order === 'number' ? e.order : 100,
        raw: e,
      })),
  };
}

/** A V1 card is its fields at the top; a JSON object with none of them is something else. */
const V1_FIELDS = ['description', 'personality', 'scenario', 'first_mes', 'mes_example'];

/**
 * A card's JSON in any of its shapes: V1 (fields at the top, no `spec`), V2 (`chara_card_v2`), V3
 * (`chara_card_v3`) and the hybrids that carry V1 copies beside `data` (where `data` wins).
 */
export function parseCardJson(json: string): ParsedCard {
  let value: unknown;
  try {
    value = JSON.parse(json.replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new CardError(`The card's JSON is malformed: ${error instanceof Error ? error.message : String(error)}.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CardError('The card is not a JSON object.');
  if (jsonTooDeep(value)) throw new CardError(`The card's JSON nests more than ${MAX_JSON_DEPTH} levels deep, which no card does: it is refused.`);
  const original = value as Record<string, unknown>;
  const spec = original.spec;
  if (spec !== undefined && spec !== 'chara_card_v2' && spec !== 'chara_card_v3') throw new CardError(`"${text(spec).slice(0, 40)}" is not a character card format this app knows.`);
  const nested = typeof original.data === 'object' && original.data !== null && !Array.isArray(original.data) ? (original.data as Record<string, unknown>) : null;
  if (spec !== undefined && !nested) throw new CardError(`A ${text(spec)} card needs its "data" object.`);
  if (!nested && !V1_FIELDS.some((field) => typeof original[field] === 'string')) {
    const hint = 'entries' in original ? ' It looks like a lorebook: add it on the Lore page.' : 'is_user' in original || 'user_name' in original ? ' It looks like a SillyTavern chat: use Import chat.' : '';
    throw new CardError(`This JSON is not a character card: it has none of a card's fields (description, personality, scenario, first_mes).${hint}`);
  }
  // Hybrid exports keep V1 copies at the top: `data` wins, the top fills in what it lacks.
  const d: Record<string, unknown> = { ...original, ...(nested ?? {}) };
  const warnings: string[] = [];
  if (typeof d.alternate_greetings === 'string') warnings.push('Its alternate greetings were one text, not a list: taken as one greeting.');
  const data: CardData = {
    name: text(d.name).trim(),
    nickname: text(d.nickname).trim(),
    description: text(d.description),
    personality: text(d.personality),
    scenario: text(d.scenario),
    firstMessage: text(d.first_mes),
    alternateGreetings: list(d.alternate_greetings),
    exampleMessages: text(d.mes_example),
    systemPrompt: text(d.system_prompt),
    postHistoryInstructions: text(d.post_history_instructions),
    creator: text(d.creator),
    creatorNotes: text(d.creator_notes),
    tags: list(d.tags),
    characterVersion: text(d.character_version),
    book: bookOf(d.character_book),
    trackedFields: trackedFieldsOf(d.extensions),
  };
  if (!data.name) warnings.push('The card has no name: give the character one before saving.');
  const kind = spec ?? 'chara_card_v1';
  return { spec: kind, data, original, warnings };
}

/** The app's own extension on a card: the fields its chats track, each checked as the event checks it. */
function trackedFieldsOf(extensions: unknown): FieldDef[] {
  const ours = typeof extensions === 'object' && extensions !== null ? (extensions as Record<string, unknown>)[CARD_EXTENSION] : undefined;
  const fields = typeof ours === 'object' && ours !== null ? (ours as Record<string, unknown>).tracked_fields : undefined;
  if (!Array.isArray(fields)) return [];
  return fields.slice(0, 20).flatMap((f) => {
    const checked = fieldDef.safeParse(f);
    return checked.success ? [checked.data] : [];
  });
}

/** Base64 as cards carry it in the wild: wrapped lines, the URL-safe alphabet, padding left off. */
export function lenientBase64(text: string): Uint8Array {
  let clean = text.replace(/\s+/g, '').replace(/-/g, '+').replace(/_/g, '/');
  clean += '='.repeat((4 - (clean.length % 4)) % 4);
  const bytes = fromBase64(clean);
  if (!bytes) throw new CardError('The card in this picture is not valid base64.');
  return bytes;
}

/** A `chara` / `ccv3` text chunk's card: base64 of UTF-8 JSON (some writers put the JSON itself). */
export function cardFromChunk(chunk: string): ParsedCard {
  if (chunk.trimStart().startsWith('{')) return parseCardJson(chunk);
  let json: string;
  try {
    json = new TextDecoder('utf-8', { fatal: true }).decode(lenientBase64(chunk));
  } catch (error) {
    if (error instanceof CardError) throw error;
    throw new CardError('The card in this picture is not UTF-8 text.');
  }
  return parseCardJson(json);
}
