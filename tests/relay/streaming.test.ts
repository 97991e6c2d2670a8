import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { completion, json, sseChunk, startFakeUpstream, startSse, type FakeUpstream } from '../support/fake-upstream.ts';
import { startRelay, TEST_KEY, type RunningRelay } from '../support/relay-harness.ts';

let upstream: FakeUpstream;
let relay: RunningRelay;

beforeEach(async () => {
  upstream = await startFakeUpstream();
  relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url });
});
afterEach(async () => {
  await relay.close();
  await upstream.close();
});

/** A promise the test resolves by hand, to hold the fake upstream mid-stream. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

describe('streamed chat completions through the relay', () => {
  it('passes chunks through as they arrive, before the upstream has finished', async () => {
    const hold = gate();
    let upstreamFinished = false;
    upstream.next(async (_req, res) => {
      startSse(res);
      res.write(sseChunk('The storm '));
      res.write(sseChunk('breaks.'));
      await hold.opened;
      res.write(sseChunk(' Silence.'));
      res.end('data: [DONE]\n\n');
      upstreamFinished = true;
    });
    const stream = await relay.client().chat.completions.create({
      model: 'small-8b',
      stream: true,
      messages: [{ role: 'user', content: 'Go on.' }],
    });
    const received: string[] = [];
    for await (const chunk of stream) {
      received.push(chunk.choices[0]?.delta.content ?? '');
      if (received.length === 2) {
        expect(upstreamFinished).toBe(false);
        hold.open();
      }
    }
    expect(received.join('')).toBe('The storm breaks. Silence.');
    expect(upstreamFinished).toBe(true);
  });

  it('aborts the upstream request the moment the client aborts', async () => {
    const hold = gate();
    upstream.next(async (_req, res) => {
      startSse(res);
      res.write(sseChunk('First words'));
      await hold.opened; // never opened: only the abort can end this request
    });
    const controller = new AbortController();
    const stream = await relay.client().chat.completions.create(
      { model: 'small-8b', stream: true, messages: [{ role: 'user', content: 'Hi' }] },
      { signal: controller.signal },
    );
    for await (const chunk of stream) {
      expect(chunk.choices[0]?.delta.content).toBe('First words');
      controller.abort();
    }
    const [seen] = upstream.completions();
    await seen!.closed;
    expect(seen!.aborted()).toBe(true);
    // The slot it held in the account-wide queue is free again.
    await expect.poll(() => relay.relay.queue.stats.inUse).toBe(0);
  });

  it('ends a stream that breaks midway with an error event the SDK raises', async () => {
    upstream.next(async (_req, res) => {
      startSse(res);
      // Let the chunk reach the relay before the connection dies, as a real network failure would.
      res.write(sseChunk('Half a sen'), () => setTimeout(() => res.destroy(), 50));
    });
    const stream = await relay.client().chat.completions.create({ model: 'small-8b', stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    const received: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) received.push(chunk.choices[0]?.delta.content ?? '');
      })(),
    ).rejects.toThrow(/stream broke/);
    expect(received).toEqual(['Half a sen']);
  });

  it('answers non-streamed requests with the upstream JSON', async () => {
    upstream.next((_req, res) => json(res, 200, completion('A calm sea.')));
    const reply = await relay.client().chat.completions.create({ model: 'small-8b', messages: [{ role: 'user', content: 'Weather?' }] });
    expect(reply.choices[0]?.message.content).toBe('A calm sea.');
    expect(reply.usage?.total_tokens).toBe(15);
  });

  it('sends the key, Featherless headers and only validated fields upstream', async () => {
    await relay.client().chat.completions.create({
      model: 'small-8b',
      messages: [{ role: 'user', content: 'Hi' }],
      temperature: 0.8,
      // @ts-expect-error a field the relay must not forward
      upstream_override: 'http://evil.example',
    });
    const [seen] = upstream.completions();
    expect(seen!.headers.authorization).toBe(`Bearer ${TEST_KEY}`);
    expect(seen!.headers['http-referer']).toMatch(/^https:\/\//);
    expect(seen!.headers['x-title']).toBe('Roleplay Engine');
    expect(seen!.body).toEqual({ model: 'small-8b', messages: [{ role: 'user', content: 'Hi' }], temperature: 0.8 });
  });

  it('retries once when a 200 carries an error body (no_response), then gives a typed error', async () => {
    const noResponse = (_req: unknown, res: Parameters<typeof json>[0]) => json(res, 200, { error: { message: 'no_response' } });
    upstream.next(noResponse, (_req, res) => json(res, 200, completion('Second time lucky.')));
    const reply = await relay.client().chat.completions.create({ model: 'small-8b', messages: [{ role: 'user', content: 'Hi' }] });
    expect(reply.choices[0]?.message.content).toBe('Second time lucky.');
    expect(upstream.completions()).toHaveLength(2);

    upstream.next(noResponse, noResponse);
    const error = await relay.client().chat.completions.create({ model: 'small-8b', messages: [{ role: 'user', content: 'Hi' }] }).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 502, code: 'upstream_no_response' });
    expect(upstream.completions()).toHaveLength(4);
  });

  it('retries a stream whose first event is an error, before sending the client anything', async () => {
    upstream.next(
      (_req, res) => {
        startSse(res);
        res.end(`data: ${JSON.stringify({ error: { message: 'no_response' } })}\n\n`);
      },
      (_req, res) => {
        startSse(res);
        res.write(sseChunk('Recovered.'));
        res.end('data: [DONE]\n\n');
      },
    );
    const stream = await relay.client().chat.completions.create({ model: 'small-8b', stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('Recovered.');
    expect(upstream.completions()).toHaveLength(2);
  });
});
