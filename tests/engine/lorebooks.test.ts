import { describe, expect, it } from 'vitest';
import { botFromCard } from '../../src/engine/cards/card-to-bot.ts';
import { readCard } from '../../src/engine/cards/read-card.ts';
import { readLorebookFile } from '../../src/engine/lore/lorebook-file.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { dumpProjections } from '../support/dump.ts';
import { openTestEngine } from '../support/sqlite.ts';

/** SillyTavern's world info export: entries keyed by uid, each entry's settings at its top level. */
const WORLD_INFO = {
  entries: {
    '0': { uid: 0, key: ['harbour', 'port'], keysecondary: [], comment: 'The harbour', content: 'The harbour freezes in winter.', constant: false, selective: true, selectiveLogic: 0, order: 100, position: 0, disable: false },
    '1': {
      uid: 1,
      key: ['bell'],
      keysecondary: ['tower', 'rope'],
      comment: 'Bell tower',
      content: 'The bell has no rope.',
      constant: false,
      selective: true,
      selectiveLogic: 3,
      order: 50,
      position: 1,
      disable: false,
      matchWholeWords: true,
      caseSensitive: true,
      scanDepth: 4,
      probability: 40,
      useProbability: true,
    },
    '2': { uid: 2, key: ['ghost'], keysecondary: [], comment: 'Off', content: 'Never told.', constant: false, selective: false, order: 10, position: 0, disable: true },
  },
};

const LOREBOOK_V3 = {
  spec: 'lorebook_v3',
  data: {
    name: 'Northern coast',
    scan_depth: 3,
    token_budget: 500,
    recursive_scanning: true,
    entries: [{ keys: ['gulls?'], use_regex: true, content: 'Gulls steal bread.', enabled: true, insertion_order: 1, name: 'Gulls', id: 7, extensions: {} }],
  },
};

const say = (engine: Awaited<ReturnType<typeof openTestEngine>>['engine'], chat: string, line: string) => {
  const turn = engine.turns.beginTurn(chat, line);
  engine.turns.finishTurn(turn, { text: 'Mira nods.', usage: null, truncated: false, reason: null, error: null });
};

describe('lorebook files', () => {
  it('reads SillyTavern world info with each entry’s settings: logic, placement, whole words, case, scan depth, probability, disabled, name', () => {
    const { name, format, book } = readLorebookFile(JSON.stringify(WORLD_INFO), 'Harbour town.json');
    expect({ name, format }).toEqual({ name: 'Harbour town', format: 'sillytavern' });
    expect(book.entries.map((e) => e.name)).toEqual(['The harbour', 'Bell tower', 'Off']);
    expect(book.entries[1]).toMatchObject({
      keys: ['bell'],
      secondaryKeys: ['tower', 'rope'],
      logic: 'and_all',
      placement: 'after_char',
      wholeWords: true,
      caseSensitive: true,
      scanDepth: 4,
      probability: 40,
      useProbability: true,
      insertionOrder: 50,
    });
    expect(book.entries[2]!.enabled).toBe(false);
  });

  it('reads a V3 lorebook with its book settings, its regex keys made expressions', () => {
    const { name, format, book } = readLorebookFile(JSON.stringify(LOREBOOK_V3));
    expect({ name, format }).toEqual({ name: 'Northern coast', format: 'lorebook_v3' });
    expect(book).toMatchObject({ scanDepth: 3, tokenBudget: 500, recursive: true });
    expect(book.entries[0]).toMatchObject({ name: 'Gulls', keys: ['/gulls?/i'] });
  });

  it('refuses what is not a lorebook, saying what it is', () => {
    expect(() => readLorebookFile('{"entries": ')).toThrow(/not JSON/);
    expect(() => readLorebookFile(JSON.stringify({ spec: 'chara_card_v2', data: { name: 'x' } }))).toThrow(/character card, not a lorebook/);
    expect(() => readLorebookFile(JSON.stringify({ entries: {} }))).toThrow(/no entries/);
    expect(() => readLorebookFile(JSON.stringify({ name: 'nothing' }))).toThrow(/not a lorebook/);
  });
});

describe('lorebooks in play', () => {
  async function setUp() {
    const { engine, db } = await openTestEngine();
    const bot = engine.newId();
    engine.append([draft.you({ name: 'Ada' }), draft.bot(bot, { name: 'Mira' })]);
    const chat = engine.startChat(bot, kickoffInput());
    const count = await loadTokenCounter();
    const lore = () =>
      engine
        .narratorPrompt(chat, engine.headSeq() + 1, count)
        .parts.filter((p) => p.label.startsWith('lore:'))
        .map((p) => `${p.label} = ${p.text}`);
    return { engine, db, bot, chat, lore };
  }

  it('an attached lorebook fires in its chat only, named in the prompt by entry and key; an entry turned off or rewritten on the Lore page is told as it is now', async () => {
    const { engine, db, chat, bot, lore } = await setUp();
    const lorebookId = engine.addLorebook({ text: JSON.stringify(WORLD_INFO), fileName: 'harbour.json' });
    say(engine, chat, '"Is the harbour open?"');
    expect(lore()).toEqual([]);

    engine.attachLorebook(chat, lorebookId, true);
    expect(engine.chatLorebooks(chat)).toEqual([{ lorebookId, name: 'harbour', attached: true }]);
    expect(lore()).toEqual(['lore: The harbour (harbour) = The harbour freezes in winter.']);
    const other = engine.startChat(bot, kickoffInput());
    say(engine, other, '"Is the harbour open?"');
    expect(engine.narratorPrompt(other, engine.headSeq() + 1, await loadTokenCounter()).parts.some((p) => p.label.startsWith('lore:'))).toBe(false);

    const harbour = engine.lorebook({ lorebookId })!.entryList[0]!;
    engine.saveLoreEntry({ lorebookId }, { ...harbour, content: 'The harbour never freezes.', keys: ['harbour'] });
    expect(lore()).toEqual(['lore: The harbour (harbour) = The harbour never freezes.']);
    expect(engine.lorebook({ lorebookId })!.entryList[0]).toMatchObject({ edited: true, content: 'The harbour never freezes.' });
    engine.saveLoreEntry({ lorebookId }, { ...harbour, enabled: false });
    expect(lore()).toEqual([]);
    expect(engine.listLorebooks()).toEqual([{ ref: { lorebookId }, name: 'harbour', kind: 'lorebook', entries: 3, enabled: 1 }]);

    engine.attachLorebook(chat, lorebookId, false);
    engine.saveLoreEntry({ lorebookId }, { ...harbour, enabled: true });
    expect(lore()).toEqual([]);

    // Deleted while attached: gone from the chat, the Lore page, and a rebuild of the chat alone.
    engine.attachLorebook(chat, lorebookId, true);
    expect(lore()).toHaveLength(1);
    engine.removeLorebook(lorebookId);
    expect(lore()).toEqual([]);
    expect(engine.listLorebooks()).toEqual([]);
    expect(() => engine.attachLorebook(chat, lorebookId, true)).toThrow(/no longer exists/);
    const before = dumpProjections(db);
    engine.rebuildChat(chat);
    expect(dumpProjections(db)).toEqual(before);
    engine.rebuild();
    expect(dumpProjections(db)).toEqual(before);
  });

  it('an entry whose key the lore engine cannot run is imported, and its page says which key never fires and why', async () => {
    const { engine } = await setUp();
    const book = { entries: { '1': { uid: 1, key: ['/(?<=the )sea/', 'gulls'], content: 'Gulls over the sea.' }, '2': { uid: 2, key: ['/harbou?r/i'], content: 'The harbour.' } } };
    const lorebookId = engine.addLorebook({ text: JSON.stringify(book), fileName: 'sea.json' });
    const [first, second] = engine.lorebook({ lorebookId })!.entryList;
    expect(first!.keyProblems).toEqual([{ key: '/(?<=the )sea/', problem: expect.stringMatching(/lookahead and lookbehind/) }]);
    expect(second!.keyProblems).toEqual([]);
  });

  it('refuses an entry that breaks the rules, an entry or lorebook that is not there, and a bad file, writing nothing', async () => {
    const { engine, chat } = await setUp();
    const lorebookId = engine.addLorebook({ text: JSON.stringify(LOREBOOK_V3), fileName: 'coast.json' });
    const gulls = engine.lorebook({ lorebookId })!.entryList[0]!;
    const head = engine.headSeq();
    expect(() => engine.saveLoreEntry({ lorebookId }, { ...gulls, probability: 140 })).toThrow(/probability/);
    expect(() => engine.saveLoreEntry({ lorebookId }, { ...gulls, position: 9 })).toThrow(/not in this lorebook/);
    expect(() => engine.saveLoreEntry({ lorebookId: engine.newId() }, gulls)).toThrow(/no longer exists/);
    expect(() => engine.attachLorebook(chat, engine.newId(), true)).toThrow(/no longer exists/);
    expect(() => engine.addLorebook({ text: '{"entries": [}', fileName: 'x.json' })).toThrow(/not JSON/);
    const longKey = { entries: [{ keys: ['sea'], content: 'ok' }, { keys: ['k'.repeat(501)], content: 'x' }] };
    expect(() => engine.addLorebook({ text: JSON.stringify(longKey), fileName: 'x.json' })).toThrow(/Entry 2 \(keys\.0\)/);
    expect(engine.headSeq()).toBe(head);
  });

  it('a bot’s card lorebook is listed and edited the same way: an entry turned off stops firing, an exported card carries the edits and keeps the rest; purging the bot removes them', async () => {
    const { engine, db } = await openTestEngine();
    engine.append([draft.you({ name: 'Ada' })]);
    const cardJson = {
      spec: 'chara_card_v2',
      spec_version: '2.0',
      data: { name: 'Vale', description: 'A pilot.', first_mes: 'Hi.', character_book: { name: 'Vale’s waters', entries: [{ keys: ['reef'], content: 'The reef is sharp.', enabled: true, insertion_order: 1, id: 41, extensions: { depth: 4, mine: 'kept' } }, { keys: ['tide'], content: 'Tides turn.', enabled: true, insertion_order: 2 }] } },
    };
    const { card, format } = await readCard(new TextEncoder().encode(JSON.stringify(cardJson)));
    const { cut: _cut, ...fields } = botFromCard(card.data);
    const botId = engine.importCard({ fields, card: card.original, spec: card.spec, format }, null);
    const chat = engine.startChat(botId, kickoffInput());
    say(engine, chat, '"Mind the reef."');
    const count = await loadTokenCounter();
    const fired = () => engine.narratorPrompt(chat, engine.headSeq() + 1, count).parts.filter((p) => p.label.startsWith('lore:')).map((p) => p.text);
    expect(fired()).toEqual(['The reef is sharp.']);
    expect(engine.listLorebooks()).toEqual([{ ref: { botId }, name: 'Vale’s waters', kind: 'card', owner: 'Vale', entries: 2, enabled: 2 }]);

    const [reef, tide] = engine.lorebook({ botId })!.entryList;
    engine.saveLoreEntry({ botId }, { ...reef!, enabled: false, wholeWords: true });
    engine.saveLoreEntry({ botId }, { ...tide!, content: 'Tides turn at noon.' });
    expect(fired()).toEqual([]);
    const exported = engine.exportCard(botId).v3 as { data: { character_book: { entries: Record<string, unknown>[] } } };
    expect(exported.data.character_book.entries).toEqual([
      { keys: ['reef'], content: 'The reef is sharp.', enabled: false, insertion_order: 1, id: 41, extensions: { depth: 4, mine: 'kept', match_whole_words: true } },
      { keys: ['tide'], content: 'Tides turn at noon.', enabled: true, insertion_order: 2 },
    ]);
    const again = await readCard(new TextEncoder().encode(JSON.stringify(exported)));
    expect(again.card.data.book!.entries.map((e) => [e.enabled, e.content])).toEqual([
      [false, 'The reef is sharp.'],
      [true, 'Tides turn at noon.'],
    ]);

    engine.deleteBot(botId);
    expect(engine.listLorebooks()).toEqual([]);
    engine.purgeNow({ botId });
    expect(db.all('SELECT * FROM lore_entries')).toEqual([]);
    expect(db.all("SELECT kind FROM events WHERE kind IN ('lore_entry_saved', 'card_kept')")).toEqual([]);
  });
});

describe('lorebooks made here, and taken out', () => {
  it('a lorebook made from nothing gets entries, fires in a chat it is attached to, and exports as world info that reads back the same', async () => {
    const { engine } = await openTestEngine();
    const bot = engine.newId();
    engine.append([draft.you({ name: 'Ada' }), draft.bot(bot, { name: 'Mira' })]);
    const chat = engine.startChat(bot, kickoffInput());
    expect(() => engine.createLorebook('  ')).toThrow(/Give the lorebook a name/);
    const lorebookId = engine.createLorebook('The Gull');
    expect(engine.listLorebooks()).toEqual([{ ref: { lorebookId }, name: 'The Gull', kind: 'made', entries: 0, enabled: 0 }]);
    const ref = { lorebookId };
    const first = engine.addLoreEntry(ref);
    const second = engine.addLoreEntry(ref);
    expect([first, second]).toEqual([0, 1]);
    const [a, b] = engine.lorebook(ref)!.entryList;
    engine.saveLoreEntry(ref, { ...a!, name: 'The ship', keys: ['Gull', '/sch?ooner/i'], content: 'The Gull is a two-masted schooner.', wholeWords: true });
    engine.saveLoreEntry(ref, {
      ...b!,
      name: 'The captain',
      keys: ['captain'],
      secondaryKeys: ['ship'],
      selective: true,
      logic: 'not_any',
      content: 'Mira has captained her for ten years.',
      placement: 'after_char',
      enabled: false,
      scanDepth: 4,
      insertionOrder: 7,
      probability: 60,
      useProbability: true,
      caseSensitive: true,
      constant: true,
      preventRecursion: true,
      excludeRecursion: true,
      ignoreBudget: true,
    });
    engine.attachLorebook(chat, lorebookId, true);
    const count = await loadTokenCounter();
    engine.turns.beginTurn(chat, '"Aboard the Gull at last."');
    expect(engine.narratorPrompt(chat, engine.headSeq(), count).parts.filter((p) => p.label.startsWith('lore:')).map((p) => p.text)).toEqual(['The Gull is a two-masted schooner.']);

    const file = engine.lorebookAsWorldInfo(ref)!;
    expect(file.fileName).toBe('The Gull.json');
    const again = readLorebookFile(file.text, file.fileName);
    expect(again.format).toBe('sillytavern');
    expect(again.name).toBe('The Gull');
    const strip = (entries: readonly object[]) => entries.map((entry) => { const { edited: _e, keyProblems: _k, ...rest } = entry as Record<string, unknown>; return rest; });
    expect(again.book.entries).toEqual(strip(engine.lorebook(ref)!.entryList));
    // Imported again, it is the same lorebook, entry for entry.
    const copy = engine.addLorebook({ text: file.text, fileName: file.fileName });
    expect(strip(engine.lorebook({ lorebookId: copy })!.entryList)).toEqual(strip(engine.lorebook(ref)!.entryList));
    expect(() => engine.addLoreEntry({ lorebookId: engine.newId() })).toThrow(/no longer exists/);
  });
});
