import { z } from 'zod';
import { fictionTime } from '../events/fields.ts';
import type { Bot, You } from '../authoring/queries.ts';
import { detectLanguage, languageInstruction, languageName } from '../text/language.ts';

/*
 * The kickoff's schema, defaults and classifier prompt: what the kickoff form needs, apart from
 * startChat (kickoff.ts) and the log code it brings, so the tab's bundle stays small.
 */
const activity = z.object({
  posture: z.string().trim().min(1, 'say how they are positioned').max(80),
  slot: z.string().trim().max(80),
  verb: z.string().trim().min(1, 'say what they are doing').max(80),
  interruptible: z.boolean(),
  requiredAttention: z.enum(['none', 'low', 'medium', 'high']),
  expectedMinutes: z.number().int().min(0).max(60 * 24 * 30).nullable(),
  attention: z.string().trim().max(200),
  holding: z.array(z.string().trim().min(1).max(80)).max(10),
});

/** What the kickoff classifier proposes and the user confirms (or corrects) before the chat starts. */
export const kickoffSchema = z.object({
  title: z.string().trim().min(1, 'give the story a title').max(120),
  place: z.object({
    name: z.string().trim().min(1, 'name the place').max(120),
    type: z.string().trim().min(1, 'say what kind of place it is').max(60),
    moving: z.boolean(),
    public: z.boolean(),
    audibleRange: z.enum(['whisper', 'room', 'building', 'street']),
  }),
  fictionTime,
  weather: z.string().trim().max(200),
  you: activity,
  bot: activity,
  edge: z.object({
    summary: z.string().trim().max(2_000),
    facts: z.array(z.string().trim().min(1).max(500)).max(20),
  }),
});
export type Kickoff = z.infer<typeof kickoffSchema>;

const idle = (verb: string): Kickoff['you'] => ({
  posture: 'standing',
  slot: '',
  verb,
  interruptible: true,
  requiredAttention: 'low',
  expectedMinutes: null,
  attention: '',
  holding: [],
});

/** What the form opens with when the classifier fails: plain, editable, never an error page. */
export function defaultKickoff(bot: Pick<Bot, 'name' | 'initialRelationship'>, now: Date): Kickoff {
  const pad = (n: number) => String(n).padStart(2, '0');
  return {
    title: `A story with ${bot.name}`,
    place: { name: 'A quiet room', type: 'room', moving: false, public: false, audibleRange: 'room' },
    fictionTime: `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}T${pad(now.getHours())}:00:00`,
    weather: '',
    you: { ...idle('talking'), attention: bot.name },
    bot: { ...idle('talking'), attention: 'you' },
    edge: { summary: bot.initialRelationship, facts: [] },
  };
}

export function kickoffPrompt(bot: Bot, you: You | undefined): { system: string; user: string } {
  // The bot's default, else what its kickoff is written in.
  const tag = bot.language ?? detectLanguage(`${bot.kickoff}\n${bot.persona}`);
  const language = tag ? languageInstruction({ tag, name: languageName(tag), source: bot.language ? 'bot' : 'story' }, 'the title, the names and every text') : '';
  return {
    system:
      'You set up the opening of an interactive story. From the kickoff scene, the character and their relationship, work out: a short ' +
      'title; the place (name, kind, whether it moves, whether it is public, how far voices carry); the in-fiction date and time as ' +
      'YYYY-MM-DDTHH:MM:SS; the weather; what the user and the character are each doing (posture, where, action, whether it can be ' +
      'interrupted, how much attention it needs, expected minutes or null, what they attend to, what they hold); and what the character ' +
      `thinks of and knows about the user (summary, facts). Invent nothing that contradicts the kickoff.${language ? ` ${language}` : ''}`,
    user:
      `Character: ${bot.name}\nPersona: ${bot.persona}\nRelationship to the user: ${bot.initialRelationship || 'unspecified'}\n` +
      `User: ${you?.name ?? 'the user'}${you?.persona ? ` (${you.persona})` : ''}\n\nKickoff scene:\n${bot.kickoff || '(none given)'}`,
  };
}

