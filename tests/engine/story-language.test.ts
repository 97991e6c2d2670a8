import { beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../support/engine.ts';
import type { ChatMessage } from '../../src/engine/llm/port.ts';
import { detectLanguage } from '../../src/engine/text/language.ts';
import { kickoffPrompt } from '../../src/engine/kickoff/schema.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openTestEngine } from '../support/sqlite.ts';

// The story's language end to end (issue 34, part 2): the narrator, the analysis, the scene
// summaries and the kickoff write in the language the story is played in.

describe('telling a text\'s language', () => {
  it.each([
    ['ミラは古い灯台で銀の鍵を見つけた。', 'ja'],
    ['米拉在旧灯塔里找到了银钥匙。', 'zh'],
    ['미라는 오래된 등대에서 은열쇠를 찾았다.', 'ko'],
    ['Мира нашла серебряный ключ в старом маяке.', 'ru'],
    ['Міра знайшла срібний ключ у старому маяку.', 'uk'],
    ['Mira fand den silbernen Schlüssel, und sie ist nicht müde.', 'de'],
    ['Mira encontró la llave de plata en el viejo faro y se fue.', 'es'],
    ['Mira a trouvé la clé dans le vieux phare et elle est partie.', 'fr'],
    ['Mira found the silver key in the old lighthouse and it was cold.', 'en'],
  ])('%s → %s', (text, language) => {
    expect(detectLanguage(text)).toBe(language);
  });

  it('says nothing when the text does not tell', () => {
    expect(detectLanguage('OK')).toBeUndefined();
    expect(detectLanguage('*nods*')).toBeUndefined();
  });
});

let engine: Engine;
let bot: string;

beforeEach(async () => {
  ({ engine } = await openTestEngine({ now: Date.now }));
  bot = engine.newId();
  engine.append([draft.you({ name: 'Ada' }), draft.bot(bot, { name: 'Mira' })]);
});

const ANALYSIS = JSON.stringify({ minutesPassed: 5, significance: 1, sceneEnd: 'none', newPlace: '', feelings: {} });
const SUMMARY = JSON.stringify({ summary: 'ミラとエイダは灯台で話した。', views: {} });

/** Answers every call by what it is: the narrator streams a line, the analysis and a scene summary give JSON. */
function storyModel() {
  return scriptedLlm(
    ...Array.from({ length: 12 }, () => (messages: readonly ChatMessage[]) => {
      const system = messages[0]?.content ?? '';
      if (system.startsWith('You keep the books')) return ANALYSIS;
      if (system.startsWith('A scene of an interactive story has ended')) return SUMMARY;
      return 'ミラは微笑んだ。';
    }),
  );
}

const systemOf = (calls: { messages: readonly ChatMessage[] }[], start: string) => calls.map((c) => c.messages[0]?.content ?? '').filter((s) => s.startsWith(start));

describe('prompts in the story\'s language', () => {
  it('a story played in Japanese: the narrator, the analysis and the scene summary are told to write in Japanese', async () => {
    const chat = engine.startChat(bot, kickoffInput());
    const model = storyModel();
    const { leader, client } = testLeader(engine, model.client);
    await client.sendTurn(chat, '「銀の鍵はどこ？」とエイダは聞いた。');
    await leader.idle();
    await client.closeScene(chat);
    await leader.idle();
    const told = 'The story is played in Japanese';
    expect(systemOf(model.calls, 'You are the narrator')[0]).toContain(`${told}: write every word of the story in Japanese.`);
    expect(systemOf(model.calls, 'You keep the books')[0]).toContain(`${told}: write every text you report`);
    expect(systemOf(model.calls, 'A scene of an interactive story has ended')[0]).toContain(`${told}: write the memory and the views in Japanese.`);
    expect(await client.storyLanguage(chat)).toEqual({ tag: 'ja', name: 'Japanese', source: 'story' });
    leader.stop();
  });

  it('an English story is not told anything about language', async () => {
    const chat = engine.startChat(bot, kickoffInput());
    const model = storyModel();
    const { leader, client } = testLeader(engine, model.client);
    await client.sendTurn(chat, '"Where is the silver key?" Ada asks, and she waits by the door.');
    await leader.idle();
    expect(model.calls.every((c) => !(c.messages[0]?.content ?? '').includes('The story is played in'))).toBe(true);
    leader.stop();
  });

  it("the chat's choice wins over what the player writes, and choosing none follows the story again", async () => {
    const chat = engine.startChat(bot, kickoffInput());
    const model = storyModel();
    const { leader, client } = testLeader(engine, model.client);
    await client.setChatLanguage(chat, 'es');
    await client.sendTurn(chat, '「銀の鍵はどこ？」');
    await leader.idle();
    expect(systemOf(model.calls, 'You are the narrator')[0]).toContain('The story is played in Spanish');
    await client.setChatLanguage(chat, null);
    expect(await client.storyLanguage(chat)).toMatchObject({ tag: 'ja', source: 'story' });
    await expect(client.setChatLanguage(chat, 'not a language!')).rejects.toThrow(/language/i);
    leader.stop();
  });

  it("a bot's default language reaches its kickoff and its chats, unless a chat chooses another", async () => {
    const korean = engine.newId();
    engine.append([draft.bot(korean, { name: '미라', language: 'ko' })]);
    const chat = engine.startChat(korean, kickoffInput());
    const model = storyModel();
    const { leader, client } = testLeader(engine, model.client);
    const bots = await client.listBots();
    expect(kickoffPrompt(bots.find((b) => b.id === korean)!, undefined).system).toContain('The story is played in Korean: write the title, the names and every text in Korean.');
    expect(await client.storyLanguage(chat)).toMatchObject({ tag: 'ko', source: 'bot' });
    await client.setChatLanguage(chat, 'ja');
    expect(await client.storyLanguage(chat)).toMatchObject({ tag: 'ja', source: 'chat' });
    // A kickoff written in a language tells it, when the bot has no default.
    expect(kickoffPrompt({ ...bots.find((b) => b.id === bot)!, kickoff: 'Мира ждёт Аду у старого маяка.' }, undefined).system).toContain('played in Russian');
    leader.stop();
  });
});
