import { describe, expect, it } from 'vitest';
import { draft } from '../support/fixtures.ts';
import { openStory } from '../support/story.ts';

describe('"Previously on…"', () => {
  it('tells only what the player saw, by the latest scenes, the most significant first, then where everyone is and the last line', async () => {
    const { engine, chat, bot } = await openStory();
    const scene = engine.chatState(chat)!.scene!.id;
    const remember = (summary: string, over: Record<string, unknown> = {}) => engine.append([draft.memory(chat, engine.newId(), bot, { sceneId: scene, summary, ...over })]);
    remember('Ada hid the map in her boot.', { significance: 3 });
    remember('Mira overheard the smugglers while Ada slept.', { significance: 3, witness: { you: false, host: true, guest: false } });
    remember('Ada promised to repay the debt.', { significance: 3 });
    remember('They watched the rain.', { significance: 0 });
    const turn = engine.turns.beginTurn(chat, '"Where now?"');
    engine.turns.finishTurn(turn, { text: 'North, to the lighthouse.\nThen we wait.', usage: null, truncated: false, reason: null, error: null });

    const recap = engine.recap(chat)!;
    expect(recap.title).toBe('Storm crossing');
    expect(recap.now).toBe(engine.chatState(chat)!.fictionTime);
    // What Ada never saw is not in it; of what she saw, the two that matter most, in story order.
    expect(recap.scenes).toEqual([
      { sceneId: scene, place: 'The Gull', began: '1890-05-01T20:00:00', happened: [
        { summary: 'Ada hid the map in her boot.', fictionTime: '1890-05-01T20:05:00' },
        { summary: 'Ada promised to repay the debt.', fictionTime: '1890-05-01T20:05:00' },
      ] },
    ]);
    expect(recap.where).toEqual([
      { name: 'Ada', place: 'The Gull', doing: 'standing, talking', away: false },
      { name: 'Mira', place: 'The Gull', doing: 'standing, talking', away: false },
    ]);
    expect(recap.lastLine).toBe('North, to the lighthouse.');
  });

  it('keeps the latest three scenes that hold something the player saw', async () => {
    const { engine, chat, bot } = await openStory();
    for (let n = 1; n <= 4; n++) {
      engine.append([draft.memory(chat, engine.newId(), bot, { sceneId: engine.chatState(chat)!.scene!.id, summary: `Scene ${n} happened.` })]);
      engine.closeScene(chat);
    }
    expect(engine.recap(chat)!.scenes.map((s) => s.happened.at(-1)!.summary)).toEqual(['Scene 2 happened.', 'Scene 3 happened.', 'Scene 4 happened.']);
  });
});

describe('a recap’s memories', () => {
  it('are cut to whole sentences of about 240 characters, or the words if there is no sentence', async () => {
    const { brief } = await import('../../src/engine/queries/recap.ts');
    const long = `${'She waits. '.repeat(30)}`;
    expect(brief(long)).toBe('She waits. '.repeat(21).trim());
    expect(brief('x'.repeat(300))).toHaveLength(240);
    expect(brief('Short\n\nand sweet.')).toBe('Short and sweet.');
  });
});
