import { describe, expect, it } from 'vitest';
import { dumpProjections } from '../support/dump.ts';
import { draft } from '../support/fixtures.ts';
import { openTestEngine } from '../support/sqlite.ts';

async function storyEngine() {
  const { engine, db } = await openTestEngine();
  const bot = engine.newId();
  const chat = engine.newId();
  engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
  const first = engine.append([draft.userTurn(chat, engine.newId(), 'one'), draft.memory(chat, engine.newId(), bot)]);
  engine.append([draft.userTurn(chat, engine.newId(), 'two'), draft.edge(chat, bot, 'you', { affinityDelta: 9 })]);
  engine.rewind(chat, first[0]!.seq + 2);
  return { engine, db, bot, chat };
}

describe('backup and restore of the event log', () => {
  it('restores every table, markers included, in a fresh database', async () => {
    const source = await storyEngine();
    const backup = JSON.parse(JSON.stringify(source.engine.exportLog()));
    const target = await openTestEngine();
    expect(target.engine.importLog(backup)).toEqual({ events: backup.events.length });
    expect(dumpProjections(target.db)).toEqual(dumpProjections(source.db));
    expect(target.engine.transcript(source.chat).turns.map((t) => t.text)).toEqual(['one']);
    // The hidden turn came along: undo brings it back in the restored copy too.
    target.engine.undoRewind(source.chat);
    expect(target.engine.transcript(source.chat).turns.map((t) => t.text)).toEqual(['one', 'two']);
  });

  it('refuses a corrupt or foreign file with a specific message, and changes nothing', async () => {
    const source = await storyEngine();
    const good = source.engine.exportLog();
    const target = await openTestEngine();
    const cases: [unknown, RegExp][] = [
      ['not even an object', /not a Roleplay Engine backup/],
      [{ hello: 'world' }, /not a Roleplay Engine backup/],
      [{ ...good, events: 'nope' }, /damaged: events/],
      [{ ...good, events: good.events.map((e, i) => (i === 1 ? { ...e, payload: '{"name": ""' } : e)) }, /Event 2 \(bot_authored\) has a payload that is not JSON/],
      [{ ...good, events: good.events.map((e, i) => (i === 1 ? { ...e, payload: JSON.stringify({ botId: 'x' }) } : e)) }, /Event 2 \(bot_authored\) is invalid: .*botId/],
      [{ ...good, events: good.events.map((e, i) => (i === 2 ? { ...e, kind: 'chat_teleported' } : e)) }, /Unknown event kind "chat_teleported": this version of the app does not know it/],
      [{ ...good, events: [...good.events].reverse() }, /out of order/],
      [{ ...good, events: good.events.map((e, i) => (i === 4 ? { ...e, cause_id: '01890000-0000-7000-8000-000000000999' } : e)) }, /Event 5 \(.*\) points its cause at 01890000-0000-7000-8000-000000000999, which is not in the backup/],
      [{ ...good, events: good.events.map((e) => (e.kind === 'chat_rewound' ? { ...e, payload: JSON.stringify({ from: '01890000-0000-7000-8000-0000000000aa' }) } : e)) }, /\(chat_rewound\) refers to event 01890000-0000-7000-8000-0000000000aa, which is not in the backup/],
      [{ ...good, events: good.events.map((e, i) => (i === 3 ? { ...e, id: 'not-a-uuid' } : e)) }, /Event 4 \(.*\) has an id that is not a UUID/],
      [{ ...good, events: good.events.map((e, i) => (i === 3 ? { ...e, id: good.events[2]!.id } : e)) }, /Event 4 \(.*\) repeats the id/],
      [{ ...good, version: 3 }, /made by a newer version of the app \(backup format 3/],
      [{ ...good, events: [...good.events, { ...good.events[0]!, id: '7fffffff-0000-7000-8000-000000000001', kind: 'settings_changed', chat_id: null, payload: JSON.stringify({ patch: { retrievalK: 500 } }) }] }, /\(settings_changed\) is invalid: .*retrievalK/],
    ];
    for (const [input, message] of cases) {
      expect(() => target.engine.importLog(input)).toThrow(message);
      expect(() => target.engine.importLog(input)).not.toThrow(/src\//); // no source paths in what the player reads
    }
    expect(target.engine.headSeq()).toBe(0);
    expect(target.engine.listBots()).toEqual([]);
  });

  it('will not restore over existing stories', async () => {
    const source = await storyEngine();
    const other = await storyEngine();
    expect(() => other.engine.importLog(source.engine.exportLog())).toThrow(/already has stories/);
  });
});

describe('marker commands re-sent with the same id', () => {
  it('apply once: a re-sent undo does not undo an older rewind', async () => {
    const { engine, chat } = await storyEngine();
    const texts = () => engine.transcript(chat).turns.map((t) => t.text);
    const three = engine.append([draft.userTurn(chat, engine.newId(), 'three')])[0]!;
    engine.as('rewind-2').rewind(chat, three.seq);
    engine.as('rewind-2').rewind(chat, three.seq);
    expect(texts()).toEqual(['one']);
    engine.as('undo-1').undoRewind(chat);
    expect(texts()).toEqual(['one', 'three']);
    engine.as('undo-1').undoRewind(chat);
    expect(texts()).toEqual(['one', 'three']);
  });

  it('a re-sent settings change is recorded once', async () => {
    const { engine } = await storyEngine();
    const head = engine.headSeq();
    engine.as('settings-1').changeSettings({ retrievalK: 7 });
    engine.as('settings-1').changeSettings({ retrievalK: 7 });
    expect(engine.headSeq()).toBe(head + 1);
  });

  it('the database keeps one identity', async () => {
    const { engine } = await openTestEngine();
    const first = engine.identify();
    expect(first.created).toBe(true);
    expect(engine.identify()).toEqual({ dbId: first.dbId, created: false });
  });
});
