import type { Bot } from '../authoring/queries.ts';
import type { CardData } from './card-json.ts';

/** The longest text a bot field holds (the authoring schema's `longText`). */
const LONG = 20_000;

/** A card's fields as a bot's, ready for the authoring schema; `greetings` are the opening's versions. */
export type CardBot = Pick<Bot, 'name' | 'persona' | 'voiceSamples' | 'traits' | 'backstory' | 'initialRelationship' | 'kickoff' | 'greetings' | 'trackedFields'> & {
  /** What did not fit and was cut, for the preview. */
  cut: string[];
};

/** `{{char}}`, `{{user}}` and the old `<BOT>` / `<USER>`, filled in at prompt time: the card keeps them. */
export function substituteNames(text: string, names: { char: string; user: string }): string {
  return text.replace(/\{\{\s*char\s*\}\}|<BOT>/gi, names.char).replace(/\{\{\s*user\s*\}\}|<USER>/gi, names.user);
}

/** The character's own lines from `mes_example`: each `{{char}}:` line of each `<START>` block. */
export function voiceSamplesOf(examples: string): string[] {
  const lines: string[] = [];
  for (const line of examples.split(/\r?\n/)) {
    const match = /^\s*(?:\{\{\s*char\s*\}\}|<BOT>)\s*:\s*(.+)$/i.exec(line);
    if (match?.[1]?.trim()) lines.push(match[1].trim().slice(0, 2_000));
  }
  return lines.slice(0, 20);
}

/**
 * A card's fields as a bot's: description and personality make the persona, the scenario the
 * kickoff, the first message and the alternate greetings the opening's versions, `mes_example`
 * the voice samples. Text past a field's limit is cut and said so.
 */
export function botFromCard(card: CardData): CardBot {
  const cut: string[] = [];
  const fit = (label: string, value: string, max = LONG) => {
    if (value.length <= max) return value;
    cut.push(`${label} was cut to ${max.toLocaleString('en')} characters`);
    return value.slice(0, max);
  };
  const persona = [card.description.trim(), card.personality.trim() && `Personality: ${card.personality.trim()}`].filter(Boolean).join('\n\n');
  const greetings = [card.firstMessage, ...card.alternateGreetings].map((g) => g.trim()).filter(Boolean);
  if (greetings.length > 20) cut.push(`only the first 20 of ${greetings.length} greetings were kept`);
  return {
    name: (card.name || card.nickname).slice(0, 80),
    persona: fit('The persona', persona),
    voiceSamples: voiceSamplesOf(card.exampleMessages),
    traits: [],
    backstory: '',
    initialRelationship: '',
    kickoff: fit('The scenario', card.scenario.trim() || card.firstMessage.trim()),
    greetings: greetings.slice(0, 20).map((g, i) => fit(`Greeting ${i + 1}`, g)),
    trackedFields: card.trackedFields,
    cut,
  };
}
