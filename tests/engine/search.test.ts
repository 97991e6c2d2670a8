import { describe, expect, it } from 'vitest';
import type { Engine } from '../support/engine.ts';
import { rebuild } from '../../src/engine/log/rebuild.ts';
import { ftsQuery, MATCH_END, MATCH_START } from '../../src/engine/queries/search.ts';
import { indexPendingTranscript } from '../../src/engine/queries/search-index.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { openStory } from '../support/story.ts';

const say = (engine: Engine, chat: string, line: string, reply: string) => {
  const started = engine.turns.beginTurn(chat, line);
  engine.turns.finishTurn(started, { text: reply, usage: null, truncated: false, reason: null, error: null });
  return engine.transcript(chat).turns.slice(-2);
};

async function twoChats() {
  const story = await openStory();
  const { engine, chat } = story;
  say(engine, chat, '"Where is the lighthouse keeper?"', 'Mira points at the squalls gathering over the cliffs.');
  say(engine, chat, '"Let us go."', 'They walk in silence.');
  const theo = engine.newId();
  engine.append([draft.bot(theo, { name: 'Theo' })]);
  const theoChat = engine.startChat(theo, kickoffInput());
  say(engine, theoChat, '"Do you fear the squall?"', 'Theo laughs. "Squalls are old friends, lighthouse or not."');
  return { ...story, theo, theoChat };
}

describe('search across chats', () => {
  it('finds every turn with the words, in any chat, stemmed and as typed so far, naming the chat and who spoke', async () => {
    const { engine, chat, theoChat } = await twoChats();
    const hits = engine.searchChats('squall');
    expect(hits.map((h) => [h.chatId, h.speakerName]).sort()).toEqual(
      [
        [chat, 'Mira'],
        [theoChat, 'Ada'],
        [theoChat, 'Theo'],
      ].sort(),
    );
    const mira = hits.find((h) => h.chatId === chat)!;
    expect(mira).toMatchObject({ chatTitle: engine.chatState(chat)!.title, botName: 'Mira' });
    expect(mira.snippet).toContain(`${MATCH_START}squalls${MATCH_END}`);
    expect(engine.transcript(chat).turns.find((t) => t.seq === mira.seq)!.turnId).toBe(mira.turnId);

    expect(engine.searchChats('lightho').map((h) => h.speakerName).sort()).toEqual(['Ada', 'Theo']);
    expect(engine.searchChats('squall lighthouse').map((h) => h.speakerName)).toEqual(['Theo']);
    expect(engine.searchChats('nothing like this')).toEqual([]);
  });

  it('leaves out what the story no longer shows: a deleted message, a rewound stretch, a deleted chat; and finds it again once back', async () => {
    const { engine, chat, theoChat } = await twoChats();
    const [line, reply] = engine.transcript(chat).turns.slice(1, 3);
    engine.setTurnHidden(chat, reply!.turnId, true);
    expect(engine.searchChats('cliffs')).toEqual([]);
    engine.setTurnHidden(chat, reply!.turnId, false);
    expect(engine.searchChats('cliffs')).toHaveLength(1);

    engine.rewind(chat, line!.seq);
    expect(engine.searchChats('cliffs')).toEqual([]);
    engine.undoRewind(chat);
    expect(engine.searchChats('cliffs')).toHaveLength(1);

    engine.deleteChat(theoChat);
    expect(engine.searchChats('squall').map((h) => h.chatId)).toEqual([chat]);
    engine.restoreChat(theoChat);
    expect(engine.searchChats('squall')).toHaveLength(3);
  });

  it('follows edits, branches and rebuilds, and its index stays whole', async () => {
    const { engine, db, chat } = await twoChats();
    const reply = engine.transcript(chat).turns.at(-1)!;
    engine.editTurn(chat, reply.turnId, 'They walk past the harbour.');
    expect(engine.searchChats('silence')).toEqual([]);
    expect(engine.searchChats('harbour')).toHaveLength(1);
    const branch = engine.branchChat(chat, reply.seq);
    expect(engine.searchChats('harbour').map((h) => h.chatId).sort()).toEqual([chat, branch].sort());
    const before = engine.searchChats('squall');
    rebuild(db);
    expect(engine.searchChats('squall')).toEqual(before);
    // FTS5's own check that the index matches the transcript row for row; throws if not.
    db.run("INSERT INTO transcript_fts (transcript_fts, rank) VALUES ('integrity-check', 1)");
    db.run("INSERT INTO memories_fts (memories_fts, rank) VALUES ('integrity-check', 1)");
    // The rebuild refills the indexes in one go and puts their triggers back: new turns are found.
    say(engine, chat, '"And the zeppelin?"', 'Mira squints at the zeppelin.');
    expect(engine.searchChats('zeppelin')).toHaveLength(2);
    db.run("INSERT INTO transcript_fts (transcript_fts, rank) VALUES ('integrity-check', 1)");
  });

  it('a write only notes the turns to index; a search indexes them first, in batches, and the index stays whole', async () => {
    const { engine, db, chat } = await twoChats();
    const waiting = () => db.get<{ n: number }>('SELECT count(*) AS n FROM transcript_fts_pending')!.n;
    expect(waiting()).toBeGreaterThan(0);
    expect(engine.searchChats('squall')).toHaveLength(3);
    expect(waiting()).toBe(0);
    // An indexed reply edited, a waiting one edited before any search, one rewound while waiting.
    const [reply] = engine.transcript(chat).turns.slice(-1);
    engine.editTurn(chat, reply!.turnId, 'They walk past the harbour.');
    const [line, fresh] = say(engine, chat, '"The zeppelin?"', 'Mira shades her eyes at the zeppelin.');
    engine.editTurn(chat, fresh!.turnId, 'Mira shades her eyes at the airship.');
    say(engine, chat, '"And the kite?"', 'A kite, high up.');
    engine.rewind(chat, engine.transcript(chat).turns.at(-2)!.seq);
    expect(waiting()).toBe(3);
    expect(indexPendingTranscript(db, 2)).toBe(1);
    expect(engine.searchChats('silence')).toEqual([]);
    expect(engine.searchChats('harbour')).toHaveLength(1);
    expect(engine.searchChats('zeppelin').map((h) => h.turnId)).toEqual([line!.turnId]);
    expect(engine.searchChats('airship').map((h) => h.turnId)).toEqual([fresh!.turnId]);
    expect(engine.searchChats('kite')).toEqual([]);
    db.run("INSERT INTO transcript_fts (transcript_fts, rank) VALUES ('integrity-check', 1)");
  });

  it('reads any input as words: FTS syntax, quotes and symbols never reach the index as commands', async () => {
    const { engine } = await twoChats();
    for (const input of ['"', 'storm"', 'NEAR(storm', 'squall AND', '-squall', 'text:storm', '*', '((', '   ', '🙂', 'a'.repeat(500)]) {
      expect(() => engine.searchChats(input), input).not.toThrow();
    }
    expect(engine.searchChats('squall AND')).toEqual([]); // "squall" and a word starting with "AND": no turn has both
    expect(engine.searchChats('-squall').length).toBe(3);
    expect(ftsQuery('  "Mira" said: hi!  ')).toBe('"mira" "said" "hi"*');
    expect(ftsQuery('?!')).toBeNull();
  });
});
