import { existsSync, readFileSync } from 'node:fs';
import { z } from 'zod';

/**
 * LoCoMo (Maharana et al., 2024; github.com/snap-research/LoCoMo): long conversations between two
 * people over many sessions, with questions whose evidence is marked turn by turn. Nobody wrote
 * it for this project, which is the point: the recall bench measured on it cannot have been tuned
 * to it. It is licensed CC BY-NC 4.0, so it is not copied into this repository: put
 * `data/locomo10.json` from that repository at `bench/data/locomo10.json` (or name a file in
 * `LOCOMO`), and `npm run bench -- retrieval` measures on it. Only the text is used (the shared
 * pictures' captions are not), and the adversarial questions (category 5) are left out, as in
 * the retrieval experiments reported on it.
 */

export const LOCOMO_PATH = process.env.LOCOMO ?? 'bench/data/locomo10.json';

/** The categories the data gives its questions (5, adversarial, is left out). */
export const CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop' };

const line = z.object({ speaker: z.string(), dia_id: z.string(), text: z.string() });
const sample = z.object({
  sample_id: z.string().optional(),
  qa: z.array(z.object({ question: z.string(), evidence: z.array(z.string()), category: z.number() })),
  conversation: z.record(z.string(), z.unknown()),
});

export interface LocomoExchange {
  /** The session's start on the story's clock (ISO, no zone), for the first exchange of each session. */
  sessionStart: string;
  you: string;
  reply: string;
  /** The dialogue ids ("D3:7") the exchange holds. */
  ids: string[];
}

export interface LocomoConversation {
  id: string;
  /** The speaker the player plays; the other is the bot. */
  player: string;
  bot: string;
  exchanges: LocomoExchange[];
  questions: { ask: string; evidence: string[]; category: number }[];
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" → "2023-05-08T13:56:00". */
export function sessionTime(text: string): string {
  const match = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!match) throw new Error(`LoCoMo: a session time not understood: "${text}"`);
  const [, h, m, half, day, month, year] = match;
  const hour = (Number(h) % 12) + (half!.toLowerCase() === 'pm' ? 12 : 0);
  const monthIndex = MONTHS.indexOf(month!.toLowerCase());
  if (monthIndex < 0) throw new Error(`LoCoMo: a month not understood: "${text}"`);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${year}-${pad(monthIndex + 1)}-${pad(Number(day))}T${pad(hour)}:${m}:00`;
}

/**
 * The conversation as a chat's exchanges: the first speaker's lines are the player's, the other's
 * lines that follow are the bot's reply. A session the bot opens starts with a reply to nothing
 * (the bot speaks first, as "Let <name> speak" does); a session the player closes ends with a line
 * the bot does not answer, kept as an exchange with an empty reply.
 */
export function toExchanges(conversation: Record<string, unknown>, player: string): LocomoExchange[] {
  const exchanges: LocomoExchange[] = [];
  for (let n = 1; Array.isArray(conversation[`session_${n}`]); n++) {
    const lines = z.array(line.passthrough()).parse(conversation[`session_${n}`]);
    const start = sessionTime(String(conversation[`session_${n}_date_time`]));
    let current: LocomoExchange | undefined;
    for (const { speaker, dia_id, text } of lines) {
      const fromPlayer = speaker === player;
      if (!current || (fromPlayer && current.reply !== '')) {
        current = { sessionStart: start, you: '', reply: '', ids: [] };
        exchanges.push(current);
      }
      if (fromPlayer) current.you = current.you ? `${current.you}\n${text}` : text;
      else current.reply = current.reply ? `${current.reply}\n${text}` : text;
      current.ids.push(dia_id);
    }
  }
  return exchanges;
}

/** The conversations of the LoCoMo file, or undefined when it is not there. */
export function loadLocomo(path: string = LOCOMO_PATH): LocomoConversation[] | undefined {
  if (!existsSync(path)) return undefined;
  const samples = z.array(sample).parse(JSON.parse(readFileSync(path, 'utf8')));
  return samples.map((s, i) => {
    const player = String(s.conversation.speaker_a);
    const bot = String(s.conversation.speaker_b);
    const exchanges = toExchanges(s.conversation, player);
    const held = new Set(exchanges.flatMap((e) => e.ids));
    return {
      id: s.sample_id ?? `conversation ${i + 1}`,
      player,
      bot,
      exchanges,
      // A question whose evidence the conversation does not hold (a few in the data point at a
      // turn id that is not there) cannot be scored.
      questions: s.qa
        .filter((q) => q.category in CATEGORIES && q.evidence.length > 0 && q.evidence.every((e) => held.has(e)))
        .map((q) => ({ ask: q.question, evidence: q.evidence, category: q.category })),
    };
  });
}
