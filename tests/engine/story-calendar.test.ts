import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import { storyTimeAgo, storyTimeSpan } from '../../src/engine/fiction-time.ts';
import { draft } from '../support/fixtures.ts';
import { narratorOnly, testLeader } from '../support/leader.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openStory } from '../support/story.ts';

const count = (db: Db, kind: string) => db.get<{ n: number }>(`SELECT count(*) AS n FROM events WHERE kind = '${kind}'`)!.n;

describe('story time in words', () => {
  it('says how long ago by the chat’s own clock, as a story would', () => {
    const now = '1890-05-10T20:00:00';
    const said = (then: string) => storyTimeAgo(then, now);
    expect(
      ['1890-05-10T19:59:00', '1890-05-10T19:35:00', '1890-05-10T18:00:00', '1890-05-10T08:00:00', '1890-05-10T02:00:00', '1890-05-09T15:00:00', '1890-05-09T22:00:00', '1890-05-07T10:00:00'].map(said),
    ).toEqual(['just now', '25 minutes ago', 'two hours ago', 'this morning', 'last night', 'yesterday afternoon', 'last night', 'three days ago']);
    expect(['1890-05-01T10:00:00', '1890-04-20T10:00:00', '1890-03-25T10:00:00', '1890-03-02T10:00:00', '1890-01-10T10:00:00', '1889-05-01T10:00:00', '1887-05-01T10:00:00'].map(said)).toEqual([
      'last week',
      'three weeks ago',
      'last month',
      'earlier this spring',
      'last winter',
      'a year ago',
      'three years ago',
    ]);
    // After the clock was set back, a memory can lie ahead of it.
    expect(said('1890-05-11T10:00:00')).toBe('later on');
    expect(said('not a time')).toBe('');
    expect([storyTimeSpan('1890-05-10T19:20:00', now), storyTimeSpan('1890-05-07T20:00:00', now), storyTimeSpan('1890-01-01T00:00:00', now)]).toEqual(['40 minutes', 'three days', 'four months']);
  });
});

describe('Skip ahead', () => {
  it('moves the clock to the next morning, by hours or days, or to a later date, as an event; an earlier date is refused, writing nothing', async () => {
    const { engine, db, chat } = await openStory();
    expect(engine.chatState(chat)!.fictionTime).toBe('1890-05-01T20:00:00');
    expect(engine.skipAhead(chat, { nextMorning: true })).toBe('1890-05-02T07:00:00');
    expect(engine.skipAhead(chat, { hours: 5 })).toBe('1890-05-02T12:00:00');
    expect(engine.skipAhead(chat, { days: 3 })).toBe('1890-05-05T12:00:00');
    expect(engine.skipAhead(chat, { to: '1890-12-24T18:30:00' })).toBe('1890-12-24T18:30:00');
    const events = count(db, 'clock_advanced');
    expect(() => engine.skipAhead(chat, { to: '1890-01-01T00:00:00' })).toThrow(/not after the story’s clock\. To set the clock back, edit the time/);
    expect(() => engine.skipAhead(chat, { hours: 0 })).toThrow();
    expect(count(db, 'clock_advanced')).toBe(events);
    // Past midnight, the next morning is this one.
    expect(engine.skipAhead(chat, { hours: 9 })).toBe('1890-12-25T03:30:00');
    expect(engine.skipAhead(chat, { nextMorning: true })).toBe('1890-12-25T07:00:00');
    // A re-sent command moves the clock once.
    expect(engine.as('skip-1').skipAhead(chat, { days: 1 })).toBe('1890-12-26T07:00:00');
    expect(engine.as('skip-1').skipAhead(chat, { days: 1 })).toBe('1890-12-26T07:00:00');
  });

  it('the clock corrected by hand (set back) is an edit like any other: marked, undoable', async () => {
    const { engine, chat } = await openStory();
    engine.skipAhead(chat, { days: 2 });
    engine.editState(chat, { type: 'chat_state' }, 'fictionTime', '1890-05-01T21:00:00');
    expect(engine.chatState(chat)!.fictionTime).toBe('1890-05-01T21:00:00');
    expect(engine.chatState(chat)!.edited).toContain('chat_state:fictionTime');
    expect(() => engine.editState(chat, { type: 'chat_state' }, 'fictionTime', 'yesterday')).toThrow(/ISO date-time/);
    engine.undoStateEdit(chat);
    expect(engine.chatState(chat)!.fictionTime).toBe('1890-05-03T20:00:00');
  });
});

describe('the narrator is told how much story time has passed', () => {
  it('since each memory it is given and since the scene began; skipping ahead and correcting the clock change the words', async () => {
    const { engine, chat, bot } = await openStory();
    engine.append([draft.memory(chat, engine.newId(), bot, { summary: 'Ada promised to repay the debt.', pinned: true, fictionTime: '1890-05-01T20:00:00' })]);
    const prompt = async () => {
      const { leader, client } = testLeader(engine, narratorOnly(scriptedLlm('Mira nods.').client));
      await client.sendTurn(chat, '"About that debt."');
      await leader.idle();
      const report = (await client.replyPrompt(chat, engine.transcript(chat).turns.at(-1)!.turnId))!;
      return { pinned: report.parts.find((p) => p.label === 'pinned memories')!.text!, scene: report.parts.find((p) => p.label === 'scene')!.text! };
    };
    engine.skipAhead(chat, { days: 3 });
    const later = await prompt();
    expect(later.pinned).toContain('- (three days ago, 1 May 1890, 20:00) Ada promised to repay the debt.');
    expect(later.scene).toMatch(/This scene began three days ago\./);

    engine.closeScene(chat);
    engine.skipAhead(chat, { hours: 5 });
    const afterScene = await prompt();
    // Ending a scene opens the next at once: it follows straight on, and five hours have passed in it.
    expect(afterScene.scene).toMatch(/This scene began five hours ago\. It follows straight on from the last scene\./);
    engine.skipAhead(chat, { days: 2 });
    engine.closeScene(chat);
    expect(engine.chatState(chat)!.lastSceneEnded).toBe(engine.chatState(chat)!.fictionTime);

    // Set back by hand: the same memory is now "yesterday evening".
    engine.editState(chat, { type: 'chat_state' }, 'fictionTime', '1890-05-02T19:00:00');
    expect((await prompt()).pinned).toContain('- (yesterday evening, 1 May 1890, 20:00) Ada promised to repay the debt.');
  });
});
