import { afterEach, describe, expect, it } from 'vitest';
import { modelCost, UpstreamQueue } from '../../relay/upstream-queue.ts';
import { findConcurrency } from '../../relay/upstream.ts';
import { json, sseChunk, startFakeUpstream, startSse, type FakeUpstream } from '../support/fake-upstream.ts';
import { startRelay, TEST_KEY, type RunningRelay } from '../support/relay-harness.ts';

describe('the account-wide queue', () => {
  it('never exceeds the plan\'s units and lets narrator requests go before analysis ones', async () => {
    const queue = new UpstreamQueue(4, 10_000);
    const order: string[] = [];
    const first = await queue.acquire(4, 'analysis'); // a 70B request fills the plan
    const waits = [
      queue.acquire(1, 'analysis').then((r) => (order.push('analysis-1'), r)),
      queue.acquire(2, 'analysis').then((r) => (order.push('analysis-2'), r)),
      queue.acquire(1, 'narrator').then((r) => (order.push('narrator'), r)),
    ];
    expect(queue.stats).toMatchObject({ inUse: 4, waiting: 3 });
    first();
    const releases = await Promise.all(waits);
    expect(order).toEqual(['narrator', 'analysis-1', 'analysis-2']);
    expect(queue.stats.inUse).toBe(4);
    releases.forEach((release) => release());
    expect(queue.stats).toMatchObject({ inUse: 0, waiting: 0 });
  });

  it('keeps first come first served: a small request does not overtake a big one of its priority', async () => {
    const queue = new UpstreamQueue(4, 10_000);
    const held = await queue.acquire(2, 'narrator');
    const order: string[] = [];
    const big = queue.acquire(4, 'narrator').then((r) => (order.push('big'), r));
    const small = queue.acquire(1, 'narrator').then((r) => (order.push('small'), r));
    await new Promise((r) => setTimeout(r, 10));
    expect(order).toEqual([]);
    held();
    (await big)();
    (await small)();
    expect(order).toEqual(['big', 'small']);
  });

  it('gives a clear 429 to a request that waited too long, and frees its place on abort', async () => {
    const queue = new UpstreamQueue(1, 50);
    const held = await queue.acquire(1, 'narrator');
    await expect(queue.acquire(1, 'analysis')).rejects.toMatchObject({ status: 429, code: 'queue_timeout' });
    const controller = new AbortController();
    const abandoned = queue.acquire(1, 'narrator', controller.signal);
    controller.abort();
    await expect(abandoned).rejects.toThrow(/aborted/);
    expect(queue.stats.waiting).toBe(0);
    held();
  });

  it('prices models like Featherless: 1 up to 15B, 2 for 24-34B, 4 for 70B and more', () => {
    expect(modelCost('NousResearch/Hermes-3-Llama-3.1-8B')).toBe(1);
    expect(modelCost('llama3-8b')).toBe(1);
    expect(modelCost('dphn/Dolphin-Mistral-24B-Venice-Edition')).toBe(2);
    expect(modelCost('qwen2-32b')).toBe(2);
    expect(modelCost('meta-llama/Llama-3.3-70B-Instruct')).toBe(4);
    expect(modelCost('deepseek-ai/DeepSeek-V3')).toBe(4);
    expect(modelCost('some-unknown-model')).toBe(1);
  });

  it('reads the plan\'s concurrency wherever /plan puts it', () => {
    expect(findConcurrency({ concurrency: 4 })).toBe(4);
    expect(findConcurrency({ plan: { name: 'premium', max_concurrency: 8 } })).toBe(8);
    expect(findConcurrency({ plan: 'basic' })).toBeUndefined();
  });
});

describe('the queue in the relay', () => {
  let upstream: FakeUpstream;
  let relay: RunningRelay;
  afterEach(async () => {
    await relay.close();
    await upstream.close();
  });

  it('does not ask a server without a working /models for it again on every completion', async () => {
    upstream = await startFakeUpstream();
    const fallback = (req: { path: string }, res: Parameters<typeof json>[0]) => json(res, req.path === '/v1/models' ? 500 : 404, { error: 'no' });
    upstream.setFallback((req, res) => (req.path.endsWith('/chat/completions') ? json(res, 200, { id: 'x', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] }) : fallback(req, res)));
    relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url });
    for (let i = 0; i < 3; i++) {
      const reply = await relay.client().chat.completions.create({ model: 'local-7b', messages: [{ role: 'user', content: 'Hi' }] });
      expect(reply.choices[0]?.message.content).toBe('ok');
    }
    expect(upstream.seen.filter((r) => r.path === '/v1/models')).toHaveLength(1);
  });

  it('sizes itself from the upstream /plan and holds requests beyond it instead of letting them fail', async () => {
    upstream = await startFakeUpstream();
    upstream.setFallback((req, res) => {
      if (req.path === '/v1/plan') return json(res, 200, { concurrency: 2 });
      if (req.path === '/v1/models') return json(res, 200, { data: [{ id: 'big-70b', model_class: 'llama3-70b' }, { id: 'small-8b' }] });
    });
    relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url });
    await expect.poll(async () => (await (await fetch(`${relay.url}/api/health`)).json()).queue.capacity).toBe(2);

    let finish!: () => void;
    const held = new Promise<void>((resolve) => (finish = resolve));
    let concurrent = 0;
    let most = 0;
    const streaming = async (_req: unknown, res: Parameters<typeof startSse>[0]) => {
      concurrent++;
      most = Math.max(most, concurrent);
      startSse(res);
      res.write(sseChunk('x'));
      await held;
      res.end('data: [DONE]\n\n');
      concurrent--;
    };
    upstream.next(streaming, streaming, streaming);
    const client = relay.client();
    const run = async (model: string) => {
      const stream = await client.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      return text;
    };
    const replies = [run('big-70b'), run('small-8b'), run('small-8b')];
    await expect.poll(() => upstream.completions().length).toBe(1);
    expect(relay.relay.queue.stats).toMatchObject({ inUse: 2, waiting: 2 });
    finish();
    expect(await Promise.all(replies)).toEqual(['x', 'x', 'x']);
    expect(most).toBeLessThanOrEqual(2);
  });
});
