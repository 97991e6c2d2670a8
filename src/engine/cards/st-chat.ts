import { CardError, jsonTooDeep, MAX_JSON_DEPTH } from './errors.ts';

/** One message of a SillyTavern chat file, as the app will write it. */
export interface StMessage {
  /** 1-based line in the file, for messages about it. */
  line: number;
  name: string;
  isUser: boolean;
  /** SillyTavern's system notes (its narrator lines, hidden prompts): not part of the story. */
  isSystem: boolean;
  text: string;
  /** When it was sent (ms), when the file says in a form we read; null otherwise. */
  sentAt: number | null;
  /** A reply's versions; the shown one is `swipes[swipeId]` and equals `text`. */
  swipes: string[];
  swipeId: number;
}

export interface StChat {
  userName: string;
  characterName: string;
  messages: StMessage[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** SillyTavern's dates: "June 3, 2023 1:23am", ISO, or epoch ms. Null when none of these (dates are kept when read, never required). */
export function stDate(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value !== 'string') return null;
  const human = /^([A-Za-z]+) (\d{1,2}), (\d{4}) (\d{1,2}):(\d{2})\s*(am|pm)$/i.exec(value.trim());
  if (human) {
    const month = MONTHS.indexOf(human[1]!.toLowerCase());
    if (month < 0) return null;
    const hour = (Number(human[4]) % 12) + (human[6]!.toLowerCase() === 'pm' ? 12 : 0);
    return Date.UTC(Number(human[3]), month, Number(human[2]), hour, Number(human[5]));
  }
  const iso = Date.parse(value);
  return Number.isFinite(iso) && /\d{4}-\d{2}-\d{2}/.test(value) ? iso : null;
}

/**
 * A SillyTavern chat file (JSON lines): a header (`user_name`, `character_name`, `chat_metadata`),
 * then one message a line (`name`, `is_user`, `mes`, `send_date`, `swipes`, `swipe_id`, `extra`).
 * Every line is checked before anything is used: a bad one is refused naming its line.
 */
export function parseSillyTavernChat(text: string): StChat {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const parsed: { line: number; value: Record<string, unknown> }[] = [];
  lines.forEach((raw, index) => {
    if (!raw.trim()) return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new CardError(`Line ${index + 1} is not JSON: ${error instanceof Error ? error.message : String(error)}.`);
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CardError(`Line ${index + 1} is not a JSON object.`);
    if (jsonTooDeep(value)) throw new CardError(`Line ${index + 1} nests more than ${MAX_JSON_DEPTH} levels deep, which no chat line does.`);
    parsed.push({ line: index + 1, value: value as Record<string, unknown> });
  });
  const header = parsed.shift();
  if (!header || (typeof header.value.user_name !== 'string' && typeof header.value.character_name !== 'string')) {
    throw new CardError('This is not a SillyTavern chat: its first line should name the user and the character.');
  }
  const messages = parsed.map(({ line, value }): StMessage => {
    if (typeof value.mes !== 'string') throw new CardError(`Line ${line} has no message text ("mes").`);
    if (typeof value.name !== 'string') throw new CardError(`Line ${line} does not say who speaks ("name").`);
    const swipes = Array.isArray(value.swipes) ? value.swipes.filter((s): s is string => typeof s === 'string') : [];
    const swipeId = typeof value.swipe_id === 'number' && Number.isInteger(value.swipe_id) && value.swipe_id >= 0 && value.swipe_id < swipes.length ? value.swipe_id : 0;
    return {
      line,
      name: value.name,
      isUser: value.is_user === true,
      isSystem: value.is_system === true,
      text: value.mes,
      sentAt: stDate(value.send_date),
      // The shown text is the chosen swipe; a file whose swipes disagree with "mes" keeps "mes" shown.
      swipes: swipes.length > 1 ? swipes.map((s, i) => (i === swipeId ? value.mes as string : s)) : [],
      swipeId: swipes.length > 1 ? swipeId : 0,
    };
  });
  return {
    userName: typeof header.value.user_name === 'string' ? header.value.user_name : 'You',
    characterName: typeof header.value.character_name === 'string' ? header.value.character_name : '',
    messages,
  };
}
