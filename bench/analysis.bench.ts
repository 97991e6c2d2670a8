import { demoReply } from '../relay/demo-model.ts';
import type { ChatMessage } from '../src/engine/llm/port.ts';
import { loadTokenCounter } from '../src/engine/turn/tokens.ts';
import { scriptedLlm } from '../tests/support/scripted-llm.ts';
import { openStory } from '../tests/support/story.ts';
import { fmt, median, printTable } from './table.ts';

const TURNS = 30;
const REPLY =
  'Mira sets the lantern down and studies the chart. "The lighthouse is two days north, if the weather holds." *She taps the coast.* "And you still owe me for the boat."';

/**
 * What one reply's analysis costs in tokens, as a real model is asked it: the classifier's whole
 * prompt (instructions, the JSON Schema, the story it is shown) and the answer, which the demo model
 * writes to that same schema. The figure issue 33 holds: still one call per reply, and what it costs.
 */
export async function benchAnalysis(): Promise<void> {
  const count = await loadTokenCounter();
  const rows: [string, string][] = [];
  for (const [guests, tracked] of [[0, false], [1, false], [0, true]] as const) {
    const { engine, chat } = await openStory();
    if (tracked) {
      // The player's own fields and a few items: what they add to the one call.
      engine.addField(chat, { name: 'Hunger', about: 'How hungry: 0 fed, 100 starving', type: 'number', min: 0, max: 100, per: 'character' });
      engine.addField(chat, { name: 'Mood', about: 'The mood of the scene', type: 'choice', choices: ['calm', 'tense', 'stormy'], per: 'chat' });
      for (const item of ['brass compass', 'sea chart', 'old lantern']) engine.addItem(chat, item, 'you', 'in my satchel');
    }
    if (guests) {
      const theo = engine.saveBot({ name: 'Theo', pronouns: 'he/him', persona: 'A lighthouse keeper.', voiceSamples: [], traits: [], backstory: '', initialRelationship: '', kickoff: 'Rain.' }, null);
      engine.setGuest(chat, theo, true);
    }
    const prompts: number[] = [];
    const answers: number[] = [];
    let calls = 0;
    for (let i = 0; i < TURNS; i++) {
      const turn = engine.turns.beginTurn(chat, `"Where to now, captain? (${i})"`);
      engine.turns.finishTurn(turn, { text: REPLY, usage: null, truncated: false, reason: null, error: null });
      const llm = scriptedLlm((messages: readonly ChatMessage[]) => {
        const answer = demoReply({ model: 'demo', messages: messages.map((m) => ({ role: m.role, content: m.content })), response_format: { type: 'json_object' } } as never);
        prompts.push(messages.reduce((sum, m) => sum + count(m.content), 0));
        answers.push(count(answer));
        return answer;
      });
      for (let job = engine.analysis.pending(chat)[0]; job; job = engine.analysis.pending(chat)[0]) await engine.analysis.run(llm.client, job, count);
      calls += llm.calls.length;
    }
    const who = guests ? 'three present (you, the host, a guest)' : tracked ? 'two present, two fields of your own, three items' : 'two present (you and the host)';
    rows.push([`${who}: model calls per reply`, fmt(calls / TURNS, 2)]);
    rows.push([`${who}: prompt tokens per reply, median / max`, `${fmt(median(prompts))} / ${fmt(Math.max(...prompts))}`]);
    rows.push([`${who}: answer tokens per reply, median / max`, `${fmt(median(answers))} / ${fmt(Math.max(...answers))}`]);
  }
  printTable(`Analysis per reply (Node, cl100k estimate; the demo model answers to the schema), ${TURNS} replies`, rows);
}
