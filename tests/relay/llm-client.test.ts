import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createRelayClient } from '../../src/engine/llm/openai-client.ts';
import { LlmError, type StreamPart } from '../../src/engine/llm/port.ts';
import { json, sseChunk, startFakeUpstream, startSse, type FakeUpstream } from '../support/fake-upstream.ts';
import { startRelay, TEST_KEY, type RunningRelay } from '../support/relay-harness.ts';
import { openTestEngine } from '../support/sqlite.ts';
import { openStory } from '../support/story.ts';
import { testLeader } from '../support/leader.ts';

let upstream: FakeUpstream | undefined;
let relay: RunningRelay | undefined;
afterEach(async () => {
  await relay?.close();
  await upstream?.close();
  relay = upstream = undefined;
});

async function withUpstream() {
  upstream = await startFakeUpstream();
  relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url });
  return { upstream, relay, llm: createRelayClient({ baseURL: `${relay.url}/api/v1` }) };
}

const user = [{ role: 'user' as const, content: 'Hi' }];

async function collect(parts: AsyncIterable<StreamPart>) {
  const out: StreamPart[] = [];
  for await (const part of parts) out.push(part);
  return out;
}

describe('the production LlmClient (openai SDK -> relay)', () => {
  it('streams deltas, the finish reason and usage, with the narrator priority', async () => {
    const { upstream, llm } = await withUpstream();
    upstream.next((_req, res) => {
      startSse(res);
      res.write(sseChunk('Rain '));
      res.write(sseChunk('falls.'));
      res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
      res.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 } })}\n\n`);
      res.end('data: [DONE]\n\n');
    });
    const parts = await collect(llm.stream(user, { model: 'small-8b', priority: 'narrator' }));
    expect(parts).toEqual([
      { type: 'delta', text: 'Rain ' },
      { type: 'delta', text: 'falls.' },
      { type: 'finish', reason: 'stop' },
      { type: 'usage', usage: { promptTokens: 12, completionTokens: 2 } },
    ]);
    const [seen] = upstream.completions();
    expect(seen!.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('ends a stream quietly when aborted, and the upstream is closed', async () => {
    const { upstream, llm } = await withUpstream();
    upstream.next(async (_req, res) => {
      startSse(res);
      res.write(sseChunk('Once upon'));
      await new Promise(() => {});
    });
    const controller = new AbortController();
    const parts: StreamPart[] = [];
    for await (const part of llm.stream(user, { model: 'small-8b', signal: controller.signal })) {
      parts.push(part);
      controller.abort();
    }
    expect(parts).toEqual([{ type: 'delta', text: 'Once upon' }]);
    const [seen] = upstream.completions();
    await seen!.closed;
    expect(seen!.aborted()).toBe(true);
  });

  it('turns relay errors into typed LlmErrors, before and during a stream', async () => {
    const { upstream, llm, relay } = await withUpstream();
    upstream.next(
      (_req, res) => json(res, 401, { error: { message: 'bad key' } }),
      (_req, res) => {
        startSse(res);
        res.write(sseChunk('Half'), () => setTimeout(() => res.destroy(), 50));
      },
    );
    const rejected = await llm.complete(user, { model: 'small-8b' }).catch((e: unknown) => e);
    expect(rejected).toBeInstanceOf(LlmError);
    expect(rejected).toMatchObject({ code: 'upstream_key_rejected', status: 401, retryable: false });
    const broken = await collect(llm.stream(user, { model: 'small-8b' })).catch((e: unknown) => e);
    expect(broken).toMatchObject({ code: 'upstream_error', retryable: true });
    await relay.close();
    const offline = await llm.complete(user, { model: 'small-8b' }).catch((e: unknown) => e);
    expect(offline).toMatchObject({ code: 'relay_unreachable', message: expect.stringMatching(/Cannot reach the relay/) });
  });

  it('asks for JSON on classifier calls and sends the analysis priority to the relay', async () => {
    const { upstream, relay } = await withUpstream();
    const sentHeaders: Headers[] = [];
    const llm = createRelayClient({
      baseURL: `${relay.url}/api/v1`,
      fetch: (input, init) => {
        sentHeaders.push(new Headers(init?.headers));
        return fetch(input, init);
      },
    });
    upstream.next((_req, res) => json(res, 200, { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: '{}' }, finish_reason: 'stop' }] }));
    await llm.complete(user, { model: 'small-8b', json: true, priority: 'analysis' });
    const [seen] = upstream.completions();
    expect(seen!.body).toMatchObject({ response_format: { type: 'json_object' } });
    expect(sentHeaders[0]!.get('x-roleplay-priority')).toBe('analysis');
    // The relay keeps its own queue hints to itself.
    expect(seen!.headers['x-roleplay-priority']).toBeUndefined();
  });
});

describe('classify through the real relay and its demo model', () => {
  it('gets a value that passes the zod schema on the first call', async () => {
    relay = await startRelay({});
    const llm = createRelayClient({ baseURL: `${relay.url}/api/v1` });
    const { engine } = await openTestEngine();
    const schema = z.object({
      significance: z.number().int().min(0).max(3),
      minutesPassed: z.number().int().min(0).max(600),
      sceneEnd: z.enum(['none', 'place_changed', 'parting', 'time_skip']),
      edges: z.array(z.object({ source: z.string(), target: z.string(), affinityDelta: z.number().min(-10).max(10), facts: z.array(z.string()) })),
    });
    const result = await engine.classify(llm, schema, { system: 'Analyse the turn.', user: 'Mira lit the lantern.' }, {
      task: 'analysis',
      fallback: { significance: 0, minutesPassed: 0, sceneEnd: 'none', edges: [] },
    });
    expect(result).toMatchObject({ ok: true, calls: 1 });
    expect(engine.classifierFailures()).toEqual([]);
  });

  it('a reply the model stops midway is kept, truncated, as "the model stopped answering" with Retry, and is not analysed', async () => {
    upstream = await startFakeUpstream();
    relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url, RELAY_UPSTREAM_TIMEOUT_MS: '300' });
    const llm = createRelayClient({ baseURL: `${relay.url}/api/v1` });
    upstream.next((_req, res) => {
      startSse(res);
      res.write(sseChunk('Mira opens her mouth to '));
    });
    const { engine, chat } = await openStory();
    const { leader, client } = testLeader(engine, llm);
    const { turnId } = await client.sendTurn(chat, '"Well?"');
    await leader.idle();
    const reply = engine.transcript(chat).turns.find((t) => t.turnId === turnId)!;
    expect(reply).toMatchObject({ status: 'truncated', reason: 'error', text: 'Mira opens her mouth to ', error: { code: 'upstream_timeout' } });
    expect(reply.error?.message).toMatch(/model stopped answering/);
    expect(engine.analysis.pending(chat).filter((job) => job.type === 'turn')).toEqual([]);
    expect(upstream.completions()).toHaveLength(1); // nothing analysed it behind our back
  });
});
