import { describe, expect, it } from 'vitest';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { completion, json } from '../support/fake-upstream.ts';
import { relayedUpstreams } from '../support/relayed-upstream.ts';
import { openStory } from '../support/story.ts';

// A classifier that answers JSON as real models do (issue 35, parts 2 and 6), through the real relay.
const relayed = relayedUpstreams();

const MESSY = `<think>
The user asks about the map {"minutesPassed": 99}? No: a short exchange.
</think>
Sure! Here's the analysis:
\`\`\`json
{
  // a few minutes of talk
  minutesPassed: 5,
  'significance': 2,
  "sceneEnd": "none",
  "newPlace": "",
  "keywords": ["map", "harbour",],
  "feelings": {"Ada -> Mira": {"affinityDelta": "+3", "trustDelta": 1, "newFacts": ["Ada wants the map"]},
\`\`\``;

describe('a classifier that answers messily', () => {
  it('thinking first, chatty, fenced, commented, single-quoted, cut off: read in one call, its parts applied', async () => {
    const { upstream, llm } = await relayed((upstream) =>
      upstream.setFallback((req, res) => {
        if (req.path === '/v1/models') return json(res, 200, { object: 'list', data: [] });
        if (req.path === '/v1/plan') return json(res, 404, { error: 'no plan here' });
        json(res, 200, completion(MESSY));
      }),
    );
    const { engine, chat } = await openStory();
    const turn = engine.turns.beginTurn(chat, '"Where is the map?"');
    engine.turns.finishTurn(turn, { text: 'Mira smiles. "What map?"', usage: null, truncated: false, reason: null, error: null });
    const count = await loadTokenCounter();
    for (let job = engine.analysis.pending(chat)[0]; job; job = engine.analysis.pending(chat)[0]) await engine.analysis.run(llm, job, count);
    expect(upstream.completions()).toHaveLength(1); // no retry call
    expect(engine.classifierFailures()).toEqual([]);
    const after = engine.chatState(chat)!;
    // "+3" read as 3, from where a new feeling starts (50).
    const edge = after.edges.find((e) => e.source === 'you')!;
    expect(edge.affinity).toBe(53);
    expect(edge.knowledge).toContain('Ada wants the map');
    const memory = after.memories.find((m) => m.summary.includes('What map'))!;
    expect(memory).toMatchObject({ significance: 2 });
    expect(memory.keywords).toMatch(/harbour/);
  });
});
