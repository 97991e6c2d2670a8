import { describe, expect, it } from 'vitest';
import { runOnModel } from '../support/fake-upstream.ts';
import { narratorOnly, testLeader } from '../support/leader.ts';
import { relayedUpstreams } from '../support/relayed-upstream.ts';
import { openStory } from '../support/story.ts';

// Replies cut where a person would (issue 35, part 5): through the real relay and the openai SDK.
const relayed = relayedUpstreams();

describe('a reply that runs on', () => {
  it('loses its leading label, ends where the player\'s line begins, stops the model there, and says so in its report', async () => {
    const { upstream, llm } = await relayed();
    upstream.next(runOnModel('Mira: She sets the lantern down. "Morning, then."\nAda: I nod and take the map.\nMira: Good.'));
    const { engine, chat } = await openStory();
    const { leader, client } = testLeader(engine, narratorOnly(llm));
    const { turnId } = await client.sendTurn(chat, '"Shall we wait for the tide?"');
    await leader.idle();
    const reply = engine.transcript(chat).turns.find((t) => t.turnId === turnId)!;
    expect(reply).toMatchObject({ status: 'done', text: 'She sets the lantern down. "Morning, then."' });
    expect(await client.replyPrompt(chat, turnId)).toMatchObject({ stoppedAt: '\nAda:', trimmedLabel: 'Mira:' });
    // The model was stopped there: it did not write its 400 more words into the void.
    const [call] = upstream.completions();
    await call!.closed;
    expect(call!.aborted()).toBe(true);
  });

  it('ends at the player\'s own stop strings from Settings too', async () => {
    const { upstream, llm } = await relayed();
    upstream.next(runOnModel('The tide turns. THE END of the chapter.'));
    const { engine, chat } = await openStory();
    engine.changeSettings({ stopStrings: ['THE END'] });
    const { leader, client } = testLeader(engine, narratorOnly(llm));
    const { turnId } = await client.sendTurn(chat, '"And then?"');
    await leader.idle();
    expect(engine.transcript(chat).turns.find((t) => t.turnId === turnId)).toMatchObject({ status: 'done', text: 'The tide turns.' });
  });
});
