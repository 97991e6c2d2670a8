import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { SCENE_WINDOW } from '../../src/engine/analysis/jobs.ts';
import { draft } from '../support/fixtures.ts';
import { scriptedLlm } from '../support/scripted-llm.ts';
import { openTestEngine, testClock } from '../support/sqlite.ts';

let engine: Engine;
let db: Db;
let chat: string;
let bot: string;
let scene: string;
const count = await loadTokenCounter();

beforeEach(async () => {
  ({ engine, db } = await openTestEngine({ now: testClock().now }));
  bot = engine.newId();
  chat = engine.newId();
  scene = engine.newId();
  engine.append([
    draft.you({ name: 'Ada' }),
    draft.bot(bot, { name: 'Mira' }),
    draft.chat(chat, bot),
    { kind: 'scene_opened', chatId: chat, payload: { sceneId: scene, containerId: null, participants: ['you', bot], fictionTime: '1890-05-01T20:00:00' } },
    { kind: 'edge_summary_rewritten', chatId: chat, payload: { source: bot, target: 'you', summary: 'An old friend, unreliable with money.' } },
  ]);
});

function remember(summary: string, over: Record<string, unknown> = {}): string {
  const id = engine.newId();
  engine.append([draft.memory(chat, id, bot, { summary, sceneId: scene, ...over })]);
  return id;
}

const memories = () =>
  db.all<{ id: string; summary: string; witness_you: number }>('SELECT id, summary, witness_you FROM memories WHERE chat_id = ? ORDER BY created_seq', [chat]);

describe('closing a scene', () => {
  it('rewrites the witness\'s everyday memories into one summary, keeps significant and pinned ones whole, and rewrites the edge summary', async () => {
    const first = remember('Ada asks about the weather.', { significance: 1 });
    remember('Ada talks about fish prices at length.', { significance: 0, witness: { you: false, host: true, guest: false } });
    const promise = remember('Ada promises to repay the forty crowns by midsummer.', { significance: 2 });
    const pinned = remember('Mira notices the scar on Ada\'s hand.', { significance: 1, pinned: true });

    engine.closeScene(chat);
    const next = engine.chatState(chat)!.scene!;
    expect(next.id).not.toBe(scene);
    expect(next.participants).toEqual(['you', bot]);
    const [job] = engine.analysis.pending(chat);
    expect(job).toMatchObject({ type: 'scene', sceneId: scene, ownerId: bot });

    const llm = scriptedLlm(
      JSON.stringify({ summary: 'An evening of small talk with Ada, who finally promised to repay her debt.', views: { Ada: 'Still unreliable, but trying to make amends.' } }),
    );
    expect(await engine.analysis.run(llm.client, job!, count)).toBe(true);

    const prompt = llm.calls[0]!.messages;
    expect(prompt[0]!.content).toContain('Previous view: An old friend, unreliable with money.');
    expect(prompt[1]!.content).toContain('fish prices');

    const after = memories();
    expect(after.map((m) => m.id)).toEqual([first, promise, pinned]);
    expect(after[0]).toMatchObject({ summary: 'An evening of small talk with Ada, who finally promised to repay her debt.', witness_you: 1 });
    expect(after[1]!.summary).toContain('forty crowns');
    expect(engine.chatState(chat)!.edges.find((e) => e.source === bot)!.summary).toBe('Still unreliable, but trying to make amends.');
    // The absorbed text is gone from the index too: a search finds the summary, not the fragment.
    expect(engine.searchMemories({ ownerId: bot, chatId: chat, role: 'host', query: 'fish prices', k: 4, now: '1890-05-01T21:00:00' })).toEqual([]);
    expect(engine.analysis.pending(chat)).toEqual([]);

    const causes = db.all<{ kind: string; cause_id: string }>("SELECT kind, cause_id FROM events WHERE kind IN ('memory_summary_rewritten', 'edge_summary_rewritten', 'scene_summarized') AND cause_id IS NOT NULL ORDER BY seq");
    const closed = db.get<{ id: string }>("SELECT id FROM events WHERE kind = 'scene_closed'")!.id;
    expect(causes).toEqual([
      { kind: 'memory_summary_rewritten', cause_id: closed },
      { kind: 'edge_summary_rewritten', cause_id: closed },
      { kind: 'scene_summarized', cause_id: closed },
    ]);
    // Replaying the log lands on the same memories.
    const before = memories();
    engine.rebuild();
    expect(memories()).toEqual(before);
  });

  it('keeps the turn memories when the summary fails, and logs why', async () => {
    remember('Ada asks about the weather.');
    remember('Ada talks about fish prices.');
    engine.closeScene(chat);
    const [job] = engine.analysis.pending(chat);
    const fallbacks = engine.settings().classifierFallbacks.map(() => '{"summary": ""}');
    expect(await engine.analysis.run(scriptedLlm('nope', 'nope again', ...fallbacks).client, job!, count)).toBe(true);
    expect(memories().map((m) => m.summary)).toEqual(['Ada asks about the weather.', 'Ada talks about fish prices.']);
    expect(engine.classifierFailures()[0]).toMatchObject({ task: 'scene summary' });
    expect(db.get('SELECT ok FROM scene_summaries WHERE scene_id = ?', [scene])).toEqual({ ok: 0 });
    expect(engine.analysis.pending(chat)).toEqual([]);
  });

  it("waits to summarise only a chat's last three closed scenes: a story restored with hundreds unsummarised does not spend the quota on its past", () => {
    const closed: string[] = [];
    for (let i = 0; i < 5; i++) {
      const current = engine.chatState(chat)!.scene!.id;
      engine.append([draft.memory(chat, engine.newId(), bot, { summary: `Scene ${i}: Ada counts the crates.`, sceneId: current })]);
      engine.closeScene(chat);
      closed.push(current);
    }
    const waiting = engine.analysis.pending(chat).flatMap((job) => (job.type === 'scene' ? [job.sceneId] : []));
    expect(SCENE_WINDOW).toBe(3);
    expect(waiting).toEqual(closed.slice(-SCENE_WINDOW));
    expect(engine.analysis.pending().flatMap((job) => (job.type === 'scene' ? [job.sceneId] : []))).toEqual(waiting);
  });

  it('refuses to close a scene when none is open, and moves the clock only forward', () => {
    engine.closeScene(chat);
    engine.append([{ kind: 'scene_closed', chatId: chat, payload: { sceneId: engine.chatState(chat)!.scene!.id, significance: 0, reason: 'manual', fictionTime: '1890-05-01T20:00:00' } }]);
    expect(() => engine.closeScene(chat)).toThrow('There is no open scene to close.');
    expect(engine.advanceClock(chat, 90)).toBe('1890-05-01T21:30:00');
    expect(() => engine.advanceClock(chat, -5)).toThrow('whole number of minutes');
    expect(engine.chatState(chat)!.fictionTime).toBe('1890-05-01T21:30:00');
  });
});
