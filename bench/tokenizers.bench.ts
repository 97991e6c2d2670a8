import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { readFileSync } from 'node:fs';
import { TokenizerLoader } from '@lenml/tokenizers';
import type { EventDraft } from '../src/engine/log/draft.ts';
import { familyCounter } from '../src/engine/turn/family-tokenizer.ts';
import { FRAMING, TOKENIZER_FAMILIES, TOKENIZER_NAMES, type Framing, type TokenizerFamily } from '../src/engine/turn/tokenizer-family.ts';
import { loadTokenCounter, type TokenCounter } from '../src/engine/turn/tokens.ts';
import { TOKENIZER_PACKAGES, tokenizerFilesOf } from '../tests/support/family-tokenizers.ts';
import { draft } from '../tests/support/fixtures.ts';
import { openTestEngine } from '../tests/support/sqlite.ts';
import { SESSIONS } from './long-conversation.data.ts';
import { STORIES } from './multilingual.data.ts';
import { fmt, printTable } from './table.ts';

const require = createRequire(import.meta.url);

/** A story to fill the prompt: pairs of the player's line and the bot's reply, oldest first. */
function stories(): { name: string; exchanges: (readonly [string, string])[] }[] {
  const english = SESSIONS.flatMap((s) => s.exchanges.map(([you, reply]) => [you, reply] as const));
  const from = (language: string) => {
    const story = STORIES.find((s) => s.language === language)!;
    const lines = [...story.everyday, ...story.facts, ...story.everyday.map((line, i) => `${story.day(i + 1)}${line}`)];
    return Array.from({ length: 120 }, (_, i) => [lines[i % lines.length]!, `${lines[(i * 7 + 3) % lines.length]!} ${lines[(i * 3 + 1) % lines.length]!}`] as const);
  };
  return [
    { name: 'English', exchanges: english },
    { name: 'Japanese', exchanges: from('ja') },
    { name: 'Russian', exchanges: from('ru') },
  ];
}

/** The narrator's prompt for a story, counted with `count`, at the default budget (8,000 hard). */
async function promptFor(exchanges: readonly (readonly [string, string])[], count: TokenCounter, framing?: Framing) {
  const { engine } = await openTestEngine({ now: Date.now });
  const bot = engine.newId();
  const chat = engine.newId();
  engine.append([draft.you(), draft.bot(bot, { voiceSamples: ['"Hold fast."', '"The sea does not wait."'] }), draft.chat(chat, bot)]);
  const drafts: EventDraft[] = [];
  for (const [you, reply] of exchanges.slice(0, -1)) {
    const turnId = engine.newId();
    drafts.push(draft.userTurn(chat, engine.newId(), you), draft.assistantStarted(chat, turnId, bot), draft.assistantTurn(chat, turnId, bot, reply));
  }
  engine.append(drafts);
  const started = engine.turns.beginTurn(chat, exchanges.at(-1)![0]);
  return engine.narratorPrompt(chat, started.startedSeq, count, 'reply', framing);
}

type Message = { role: string; content: string };

/**
 * Mistral's V3-Tekken and Gemma 3's chat templates, written out: the Jinja in @lenml/tokenizers
 * cannot parse theirs. Nemo puts the system prompt before the last user message; Gemma before the
 * first, and calls the assistant "model".
 */
const FRAMED: Partial<Record<TokenizerFamily, (messages: Message[]) => string>> = {
  'mistral-nemo': (messages) => {
    const system = messages.find((m) => m.role === 'system')?.content;
    const rest = messages.filter((m) => m.role !== 'system');
    const lastUser = rest.map((m) => m.role).lastIndexOf('user');
    return `<s>${rest.map((m, i) => (m.role === 'user' ? `[INST]${i === lastUser && system ? `${system}\n\n` : ''}${m.content}[/INST]` : `${m.content}</s>`)).join('')}`;
  },
  gemma3: (messages) => {
    const system = messages.find((m) => m.role === 'system')?.content;
    const rest = messages.filter((m) => m.role !== 'system');
    const turns = rest.map((m, i) => `<start_of_turn>${m.role === 'assistant' ? 'model' : 'user'}\n${i === 0 && system ? `${system}\n\n` : ''}${m.content}<end_of_turn>\n`);
    return `<bos>${turns.join('')}<start_of_turn>model\n`;
  },
};

/** The family's real tokenizer, with its chat template: what the model's server counts for the messages. */
function realCount(family: TokenizerFamily): (messages: Message[]) => number {
  const files = tokenizerFilesOf(family);
  const tokenizer = TokenizerLoader.fromPreTrained({ tokenizerJSON: files.tokenizer as never, tokenizerConfig: files.config as never });
  const framed = FRAMED[family];
  if (framed) return (messages) => tokenizer.encode(framed(messages), { add_special_tokens: false }).length;
  return (messages) => (tokenizer.apply_chat_template(messages, { tokenize: true, add_generation_prompt: true, return_tensor: false }) as number[]).length;
}

const percent = (budget: number, real: number) => `${budget >= real ? '+' : ''}${fmt((100 * (budget - real)) / real, 1)} %`;

/**
 * Each family's own tokenizer (issue 35, part 3): the narrator's prompt for a story in three
 * languages, counted as the budget counts it (the family's tokenizer, or cl100k plus a tenth as
 * before), against what the family's real tokenizer counts once its chat template has framed
 * the messages (what the model's server counts). Plus what each tokenizer costs to load.
 */
export async function benchTokenizers(): Promise<void> {
  const cl100k = await loadTokenCounter();
  const rows: [string, string][] = [];
  const costs: [string, string][] = [];
  let worst = 0;
  for (const family of TOKENIZER_FAMILIES) {
    const started = performance.now();
    const own = await familyCounter(tokenizerFilesOf(family));
    const built = performance.now() - started;
    const templated = realCount(family);
    const file = require.resolve(`${TOKENIZER_PACKAGES[family]}/models/tokenizer.json`);
    costs.push([`${TOKENIZER_NAMES[family]}`, `${fmt(statSync(file).size / 1e6, 1)} MB, ${fmt(gzipSync(readFileSync(file), { level: 6 }).length / 1e6, 1)} MB gzipped; built in ${fmt(built)} ms`]);
    for (const story of stories()) {
      const exact = await promptFor(story.exchanges, own, FRAMING[family]);
      const estimated = await promptFor(story.exchanges, cl100k);
      const exactReal = templated(exact.messages);
      const error = (100 * Math.abs(exact.tokens - exactReal)) / exactReal;
      worst = Math.max(worst, error);
      rows.push([
        `${TOKENIZER_NAMES[family]}, ${story.name}`,
        `${fmt(exactReal)} real · own tokenizer ${fmt(exact.tokens)} (${percent(exact.tokens, exactReal)}) · cl100k ×1.1 ${fmt(estimated.tokens)} (${percent(estimated.tokens, templated(estimated.messages))})`,
      ]);
    }
  }
  printTable("The narrator prompt's count against the family's real tokenizer, chat template included (default budget: 8,000 hard)", [
    ...rows,
    ['largest error with the family’s own tokenizer', `${fmt(worst, 1)} %`],
  ]);
  printTable('What each tokenizer costs, fetched once by the tokenizer worker (Node here)', costs);
}
