import type { CompletionRequest } from './request-body.ts';
import { fitToKickoff } from './demo-kickoff.ts';
import { instanceOf, schemaInPrompt } from './demo-json.ts';

/**
 * The built-in demo model, used when no API key is configured, so a new user sees the whole app
 * work. It writes short narrative prose that reacts to the last user message, and JSON that fits
 * the schema in the prompt when a JSON object is asked for.
 */
export const DEMO_MODELS = [
  'roleplay-engine/demo',
  'dphn/Dolphin-Mistral-24B-Venice-Edition',
  'NousResearch/Hermes-3-Llama-3.1-8B',
  'cognitivecomputations/dolphin-2.9.4-llama3-8b',
  'mlabonne/Meta-Llama-3.1-8B-Instruct-abliterated',
];

function seeded(text: string) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return () => {
    h = Math.imul(h ^ (h >>> 15), 2246822507);
    h = Math.imul(h ^ (h >>> 13), 3266489909);
    return ((h ^= h >>> 16) >>> 0) / 2 ** 32;
  };
}

const STOP = new Set('the a an and or but to of in on at for with you your i me my is are was were be it this that what how'.split(' '));

function topicOf(text: string): string {
  const words = text
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/\(\([\s\S]*?\)\)/g, ' ')
    .toLowerCase()
    .match(/[a-z][a-z'-]{3,}/g);
  const candidates = (words ?? []).filter((w) => !STOP.has(w));
  return candidates.sort((a, b) => b.length - a.length)[0] ?? 'the evening';
}

/** The bot's name as the narrator prompt gives it, whatever its letters (Élodie, Captain Mira, 李娜). */
function speakerName(system: string): string {
  const match = /You write (.{1,80}?)'s words/.exec(system) ?? /(?:You are|you play|Character:|Name:)\s+([^\s,.:;]{1,80})/u.exec(system);
  return match?.[1]?.trim() || 'Your companion';
}

export function demoReply(request: CompletionRequest): string {
  const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n');
  const lastUser = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  if (wantsJson(request)) {
    const schema = schemaInPrompt(request.messages.map((m) => m.content).join('\n'));
    const proposal = schema ? instanceOf(schema, topicOf(lastUser)) : {};
    if (proposal && typeof proposal === 'object' && 'threads' in proposal) (proposal as { threads: unknown }).threads = demoThreads(lastUser);
    if (proposal && typeof proposal === 'object' && 'items' in proposal) (proposal as { items: unknown }).items = demoItems(lastUser, system);
    if (proposal && typeof proposal === 'object' && 'fields' in proposal) (proposal as { fields: unknown }).fields = demoFields(system);
    const kickoff = /\nKickoff scene:\n([\s\S]*)$/.exec(lastUser)?.[1];
    return JSON.stringify(kickoff ? fitToKickoff(proposal, kickoff) : proposal);
  }
  const name = speakerName(system);
  if (/\(Write .{1,80}'s next message in the story/.test(lastUser)) return demoDraft(lastUser, request);
  const said = /"([^"]{1,160})"/.exec(lastUser)?.[1];
  const did = /\*([^*]{1,160})\*/.exec(lastUser)?.[1];
  const random = seeded(lastUser + system.length);
  const pick = <T>(options: readonly T[]): T => options[Math.floor(random() * options.length)]!;

  const opening = did
    ? pick([`${name} takes that in (*${did}*) with a slow smile.`, `${name} notices (*${did}*) and leans a little closer.`])
    : pick([`${name} considers you for a long moment.`, `${name} lets the silence stretch, then exhales.`]);
  const echo = said && (said.length > 40 ? `${said.slice(0, 40).trimEnd()}…` : said.replace(/[.!?]+$/, ''));
  const answer = echo
    ? pick([
        `"${echo}?" ${name} repeats softly. "You always did know how to surprise me."`,
        `"Is that so?" ${name} asks, turning your words over. "Then tell me everything."`,
      ])
    : pick([`"Of all the things to bring up tonight," ${name} murmurs, shaking their head.`, `"Go on," ${name} says. "I'm listening."`]);
  const scene = pick([
    'Somewhere nearby, a door creaks and the lamplight wavers.',
    'Rain taps against the window, patient and unhurried.',
    'The fire pops, scattering a few bright sparks across the hearth.',
  ]);
  const close = pick([
    `*${name} reaches for the cup on the table, eyes never leaving yours.*`,
    `*${name} waits, clearly curious where this is going.*`,
  ]);
  return `${opening} ${answer}\n\n${scene} ${close}\n\n(This is the demo model. Add a key in Settings → Connection to play with a real one.)`;
}

/** The latest turn as the analysis prompt gives it ("Latest turn:" up to the blank line), on one line. */
const latestTurn = (classifierInput: string): string => (/Latest turn:\n([\s\S]*?)(?:\n\n|$)/.exec(classifierInput)?.[1] ?? '').replace(/\s+/g, ' ');

/**
 * The demo analysis's threads: a promise when the player's latest line asks for or makes one, a
 * question when it asks something, about its main word; none otherwise (most turns open nothing).
 */
function demoThreads(classifierInput: string): { opened: { kind: string; text: string }[]; resolved: string[] } {
  const said = latestTurn(classifierInput);
  // The thread is about what was promised or asked, not about the word "promise".
  const topic = topicOf(said.replace(/\b(promise[sd]?|swear|vow|word)\b/gi, ' '));
  const opened = /\b(promise|swear|vow|give you my word)\b/i.test(said)
    ? [{ kind: 'promise', text: `A promise was made about ${topic}.` }]
    : /\?/.test(said)
      ? [{ kind: 'question', text: `What about ${topic}? It has not been answered yet.` }]
      : [];
  return { opened, resolved: [] };
}

/**
 * The demo analysis's items: a thing the player's latest line takes, finds or holds becomes the
 * player's; one it gives or hands over goes to the other person present (an item already listed
 * changes hands instead of being noted twice). Nothing otherwise.
 */
function demoItems(classifierInput: string, system: string): { new: { name: string; holder: string; where: string; state: string }[]; changed: { item: string; holder: string }[] } {
  const none = { new: [], changed: [] };
  const said = latestTurn(classifierInput);
  const player = /^([^:]{1,80}):/.exec(said)?.[1]?.trim() ?? '';
  const present = [...system.matchAll(/^- (.+?)(?: \(the user's character\))?$/gm)].map((m) => m[1]!.trim());
  const other = present.find((name) => name !== player) ?? '';
  const found = /\b(take|takes|took|pick up|picks up|picked up|find|finds|found|hold|holds|draw|draws|give|gives|gave|hand|hands|handed)\s+(?:you\s+|her\s+|him\s+|them\s+)?(?:the|a|an|my|your|his|her|this|that)\s+([a-z][a-z'-]*(?: [a-z][a-z'-]*){0,2})/i.exec(said);
  if (!found) return none;
  const name = found[2]!.replace(/\s+\b(and|to|from|with|of|in|on|at|for)\b.*$/i, '').trim().toLowerCase();
  const holder = /^(give|gives|gave|hand|hands|handed)$/i.test(found[1]!) ? other : player;
  const listed = [...system.matchAll(/^(I\d+): (.+?) \(/gm)].find((m) => m[2]!.toLowerCase() === name);
  if (listed) return { new: [], changed: [{ item: listed[1]!, holder }] };
  return { new: [{ name, holder, where: 'in hand', state: '' }], changed: [] };
}

/**
 * The demo analysis's fields of the player's own: a number not yet set starts mid-range, then
 * creeps up a little each turn (hunger grows, tension rises); a choice starts at its first; words
 * start plainly. Each as the prompt lists it: `"Hunger (Ada)" (number 0–100): … Now: 40`.
 */
function demoFields(system: string): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const m of system.matchAll(/^"([^"\n]{1,120})" \(([^)\n]*)\)[^\n]*Now: ([^\n]*)$/gm)) {
    const [, label, kind, now] = m as unknown as [string, string, string, string];
    const unset = now === 'not set';
    const range = /^number (-?[\d.]+)–(-?[\d.]+)$/.exec(kind);
    if (range) {
      const [low, high] = [Number(range[1]), Number(range[2])];
      fields[label] = unset ? Math.round((low + high) / 2) : Math.min(high, Number(now) + Math.max(1, Math.round((high - low) / 20)));
    } else if (kind.startsWith('one of: ')) {
      if (unset) fields[label] = kind.slice('one of: '.length).split(', ')[0];
    } else if (kind === 'text' && unset) {
      fields[label] = /outfit|cloth|wear|dress/i.test(label) ? 'plain travelling clothes' : /injur|wound|hurt/i.test(label) ? 'none so far' : 'as the scene has it';
    }
  }
  return fields;
}

/** Impersonate on the demo model: the player's next line, in their voice, about what was last said. */
function demoDraft(lastUser: string, request: CompletionRequest): string {
  const story = request.messages.filter((m) => m.role === 'assistant').at(-1)?.content ?? lastUser;
  const topic = topicOf(story.replace(/\(This is the demo model[^)]*\)/, ''));
  const random = seeded(story);
  const pick = <T>(options: readonly T[]): T => options[Math.floor(random() * options.length)]!;
  return pick([
    `*I lean back and think it over.* "Tell me more about ${topic}. I want to hear all of it."`,
    `"${topic[0]!.toUpperCase()}${topic.slice(1)}? Really?" *I laugh softly and shake my head.* "Go on, then."`,
    `*I hold your gaze for a moment.* "Fine. But only if you tell me what ${topic} has to do with tonight."`,
  ]);
}

export function wantsJson(request: CompletionRequest): boolean {
  if (request.response_format?.type === 'json_object') return true;
  const last = request.messages.at(-1)?.content ?? '';
  return /respond (only )?with (a )?(valid )?json/i.test(last);
}

/** Splits text into small pieces the way a model streams tokens: words with their trailing space. */
export function demoTokens(text: string): string[] {
  return text.match(/\S+\s*|\s+/g) ?? [];
}

/** Rough token counts for the usage block (about four characters a token). */
export function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}
