import { parseCardJson } from './card-json.ts';
import { botFromCard } from './card-to-bot.ts';

/** The bot as the app holds it: what an export writes into the card. */
export interface ExportedBot {
  name: string;
  persona: string;
  kickoff: string;
  greetings: string[];
  voiceSamples: string[];
}

/** Fields only V3 has: left out of the V2 copy written beside it for older apps. */
const V3_ONLY = ['assets', 'nickname', 'creator_notes_multilingual', 'source', 'group_only_greetings', 'creation_date', 'modification_date'];

/**
 * The bot as a card: V3, and a V2 copy for apps that read only `chara`. Start from the card the bot
 * came from, kept whole, and write into it only what was edited here (a field whose value is what
 * the import made of the card stays as the card had it): a card exported unedited is the card
 * imported, extensions, assets and unknown keys included.
 */
export function cardForExport(bot: ExportedBot, kept: Record<string, unknown> | null): { v3: Record<string, unknown>; v2: Record<string, unknown> } {
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
