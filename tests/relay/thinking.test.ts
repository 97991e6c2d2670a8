import { describe, expect, it } from 'vitest';
import type { StreamPart } from '../../src/engine/llm/port.ts';
import { sseChunk, startSse, thinkingModel, type ThinkingStyle } from '../support/fake-upstream.ts';
import { narratorOnly, testLeader } from '../support/leader.ts';
import { TEST_KEY } from '../support/relay-harness.ts';
import { relayedUpstreams } from '../support/relayed-upstream.ts';
import { openStory } from '../support/story.ts';

// Thinking models, apart (issue 35, part 1): through the real relay and the openai SDK.
const withUpstream = relayedUpstreams();

const THINKING = 'She asked about the map. Mira hid it {carefully}; she should deflect, gently.';
const REPLY = 'Mira smiles. "What map, love?"';

describe('a thinking model', () => {
  it('passes reasoning deltas through the relay as thinking, redacting a key that turns up in them', async () => {
    const { upstream, llm } = await withUpstream();
    upstream.next((_req, res) => {
      startSse(res);
      res.write(sseChunk('', { choices: [{ index: 0, delta: { content: null, reasoning_content: `The key is ${TEST_KEY}.` }, finish_reason: null }] }));
      res.write(sseChunk('', { choices: [{ index: 0, delta: { reasoning: ' Think.' }, finish_reason: null }] }));
      res.write(sseChunk('Hello.'));
      res.end('data: [DONE]\n\n');
    });
    const parts: StreamPart[] = [];
    for await (const part of llm.stream([{ role: 'user', content: 'Hi' }], { model: 'small-8b' })) parts.push(part);
    const thinking = parts.flatMap((p) => (p.type === 'thinking' ? [p.text] : [])).join('');
    expect(thinking).not.toContain(TEST_KEY);
    expect(thinking).toMatch(/^The key is .+\. Think\.$/);
    expect(parts.filter((p) => p.type === 'delta')).toEqual([{ type: 'delta', text: 'Hello.' }]);
  });

  it.each<ThinkingStyle>(['tags', 'template-opened', 'reasoning_content', 'reasoning'])(
    'thinking in %s: kept apart from the reply, mirrored to the tabs, and out of the next prompt, the memories, search and the SillyTavern export; the backup keeps it',
    async (style) => {
      const { upstream, llm } = await withUpstream();
      upstream.next(thinkingModel(style, THINKING, REPLY, 1), thinkingModel('tags', 'Short.', 'Mira turns away.', 1));
      const { engine, chat } = await openStory();
      const { leader, client, events } = testLeader(engine, narratorOnly(llm));
      const { turnId } = await client.sendTurn(chat, '"Where is the map?"');
      await leader.idle();
      const reply = engine.transcript(chat).turns.find((t) => t.turnId === turnId)!;
      expect(reply).toMatchObject({ status: 'done', text: REPLY, thinking: { text: THINKING } });
      expect(reply.thinking!.ms).toEqual(expect.any(Number));

      // Every tab was sent the thinking and the reply apart, and rebuilds both from the messages.
      const messages = events.flatMap((e) => (e.type === 'publish' && e.topic === `stream:${chat}` ? [e.data as { type: string; text?: string; moved?: true }] : []));
      let [text, thought] = ['', ''];
      for (const m of messages) {
        if (m.type === 'delta') text += m.text;
        if (m.type === 'thinking' && m.moved) [text, thought] = [text.slice(0, text.length - m.text!.length), thought + m.text];
        else if (m.type === 'thinking') thought += m.text;
      }
      expect([text, thought.trim()]).toEqual([REPLY, THINKING]);
      expect(messages.some((m) => m.type === 'thought')).toBe(true);

      await client.sendTurn(chat, '"Tell me."');
      await leader.idle();
      const next = upstream.completions()[1]!.body as { messages: { content: string }[] };
      expect(JSON.stringify(next.messages)).toContain('What map, love?');
      expect(JSON.stringify(next.messages)).not.toContain('deflect');
      expect(engine.chatState(chat)!.memories.map((m) => m.summary).join(' ')).not.toContain('deflect');
      expect(await client.searchChats('deflect')).toEqual([]);
      expect(await client.exportChat(chat, 'sillytavern')).not.toContain('deflect');
      expect(JSON.stringify(engine.exportLog())).toContain('deflect');
    },
  );

  it('stopped while thinking, keeps what it thought, marked stopped; a reply cut short keeps its thinking too', async () => {
    const { upstream, llm } = await withUpstream();
    upstream.next(thinkingModel('tags', `${THINKING} ${'And more. '.repeat(200)}`, REPLY, 10));
    const { engine, chat } = await openStory();
    const { leader, client } = testLeader(engine, narratorOnly(llm));
    const { turnId } = await client.sendTurn(chat, '"Where is the map?"');
    await new Promise((resolve) => setTimeout(resolve, 300));
    await client.stopTurn(chat);
    await leader.idle();
    const reply = engine.transcript(chat).turns.find((t) => t.turnId === turnId)!;
    expect(reply).toMatchObject({ status: 'truncated', reason: 'stopped', text: '', thinking: { ms: null } });
    expect(reply.thinking!.text).toMatch(/^She asked about the map/);
  });
});
