import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { completion, json, sseChunk, startFakeUpstream, startSse, type FakeUpstream } from '../support/fake-upstream.ts';
import { startRelay, TEST_KEY, type RunningRelay } from '../support/relay-harness.ts';

let upstream: FakeUpstream;
let relay: RunningRelay;

async function start(env: Record<string, string> = {}) {
  upstream = await startFakeUpstream();
  relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url, ...env });
}
afterEach(async () => {
  await relay?.close();
  await upstream?.close();
});

const ask = (stream: boolean) => ({ model: 'small-8b', stream, messages: [{ role: 'user' as const, content: 'Go on.' }] });

/** Everything a streamed reply gives before it ends, and how it ended. */
async function readStream() {
  const stream = await relay.client().chat.completions.create(ask(true) as never);
  let text = '';
  try {
    for await (const chunk of stream as unknown as AsyncIterable<{ choices: { delta: { content?: string } }[] }>) text += chunk.choices[0]?.delta.content ?? '';
    return { text, error: undefined };
  } catch (error) {
    return { text, error: error as Error & { code?: string } };
  }
}

describe('an upstream that stalls', () => {
  it('midway through a stream: the stream ends with an error saying the model stopped answering, not as a finished reply', async () => {
    await start({ RELAY_UPSTREAM_TIMEOUT_MS: '300' });
    upstream.next((_req, res) => {
      startSse(res);
      res.write(sseChunk('Half a sen'));
    });
    const { text, error } = await readStream();
    expect(text).toBe('Half a sen');
    expect(error?.message).toMatch(/model stopped answering/);
  });

  it('before its first event: a 504 the app shows, and the queue slot is free again', async () => {
    await start({ RELAY_UPSTREAM_TIMEOUT_MS: '300' });
    upstream.next((_req, res) => startSse(res));
    const error = await relay.client().chat.completions.create(ask(true) as never).catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 504, code: 'upstream_timeout' });
    await expect.poll(() => relay.relay.queue.stats.inUse).toBe(0);
  });

  it('in a non-streamed body: each request times out and releases its slot, so later ones are still served', async () => {
    await start({ RELAY_UPSTREAM_TIMEOUT_MS: '300', RELAY_UPSTREAM_CONCURRENCY: '2', RELAY_QUEUE_TIMEOUT_MS: '5000' });
    const stalling = (_req: unknown, res: Parameters<typeof json>[0]) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"id": "chatcmpl-1", "choices": [');
    };
    upstream.next(stalling, stalling, stalling, stalling);
    const results = await Promise.all(Array.from({ length: 4 }, () => relay.client().chat.completions.create(ask(false) as never).catch((e: unknown) => e)));
    for (const result of results) expect(result).toMatchObject({ status: 504, code: 'upstream_timeout' });
    expect(relay.relay.queue.stats.inUse).toBe(0);
    upstream.next((_req, res) => json(res, 200, completion('Served.')));
    const reply = await relay.client().chat.completions.create(ask(false) as never);
    expect((reply as { choices: { message: { content: string } }[] }).choices[0]?.message.content).toBe('Served.');
  });
});

describe('an upstream that echoes the key', () => {
  it('in an error body, where a cut at 300 characters would have split it: nothing of it shows', async () => {
    await start();
    upstream.next((_req, res) => json(res, 500, { error: { message: `${'x'.repeat(294)}${TEST_KEY}` } }));
    const error = (await relay.client().chat.completions.create(ask(false) as never).catch((e: unknown) => e)) as Error;
    expect(error.message).not.toContain(TEST_KEY.slice(0, 6));
    expect(relay.logs.join('\n')).not.toContain(TEST_KEY.slice(0, 6));
  });

  it('in a 200 reply, a model list, and a stream that splits it across network chunks: redacted everywhere', async () => {
    await start();
    upstream.next((_req, res) => json(res, 200, completion(`Your key is ${TEST_KEY}.`)));
    const reply = await relay.client().chat.completions.create(ask(false) as never);
    expect(JSON.stringify(reply)).not.toContain(TEST_KEY);
    expect(JSON.stringify(reply)).toContain('[redacted]');

    upstream.setFallback((req, res) => json(res, 200, { object: 'list', data: [{ id: 'small-8b' }, { id: `leak-${TEST_KEY}` }] }));
    const models = await fetch(`${relay.url}/api/v1/models`).then((r) => r.text());
    expect(models).not.toContain(TEST_KEY);

    const event = sseChunk(`It is ${TEST_KEY}, plainly.`);
    const cut = event.indexOf(TEST_KEY) + 9;
    upstream.next((_req, res) => {
      startSse(res);
      res.write(sseChunk('First. '));
      res.write(event.slice(0, cut), () => setTimeout(() => res.end(`${event.slice(cut)}data: [DONE]\n\n`), 60));
    });
    const { text, error } = await readStream();
    expect(error).toBeUndefined();
    expect(text).toBe('First. It is [redacted], plainly.');
  });
});

describe('an upstream that sends too much, or in an odd but valid shape', () => {
  it('a stream that opens with a comment (": keep-alive") is a stream like any other', async () => {
    await start();
    upstream.next((_req, res) => {
      startSse(res);
      // On its own, as a server that pings before the model starts would send it.
      res.write(': keep-alive\n\n', () =>
        setTimeout(() => {
          res.write(sseChunk('Still here.'));
          res.end('data: [DONE]\n\n');
        }, 50),
      );
    });
    expect(await readStream()).toEqual({ text: 'Still here.', error: undefined });
  });

  it('a first event past the size limit is refused with a typed error, and the relay stays responsive meanwhile', async () => {
    await start({ RELAY_MAX_EVENT_BYTES: '100000' });
    upstream.next((_req, res) => {
      startSse(res);
      for (let i = 0; i < 30; i++) res.write(`data: ${'x'.repeat(10_000)}`); // no blank line, ever
    });
    const pending = relay.client().chat.completions.create(ask(true) as never).catch((e: unknown) => e);
    const health = await fetch(`${relay.url}/api/health`);
    expect(health.status).toBe(200);
    expect(await pending).toMatchObject({ status: 502, code: 'upstream_too_large' });
  });

  it('an event past the limit midway ends the stream with an error, keeping what came before', async () => {
    await start({ RELAY_MAX_EVENT_BYTES: '100000' });
    upstream.next((_req, res) => {
      startSse(res);
      res.write(sseChunk('Before.'));
      for (let i = 0; i < 30; i++) res.write(`data: ${'y'.repeat(10_000)}`);
    });
    const { text, error } = await readStream();
    expect(text).toBe('Before.');
    expect(error).toBeDefined();
  });
});

describe('an upstream error that is not an error message', () => {
  it('passes on only its JSON error.message, bounded; an HTML page or another service’s documents show as the status alone', async () => {
    await start();
    upstream.next(
      (_req, res) => {
        res.writeHead(400, { 'Content-Type': 'text/html' });
        res.end('<html><body>internal admin page: secret-7731</body></html>');
      },
      (_req, res) => json(res, 500, { total_rows: 1, rows: [{ id: 'x', doc: { note: 'secret-7731' } }] }),
      (_req, res) => json(res, 400, { error: { message: `That model is not on your plan. ${'y'.repeat(1_000)}` } }),
    );
    const messages: string[] = [];
    for (let i = 0; i < 3; i++) messages.push(((await relay.client().chat.completions.create(ask(false) as never).catch((e: unknown) => e)) as Error).message);
    expect(messages[0]).toMatch(/HTTP 400/);
    expect(messages[1]).toMatch(/HTTP 500/);
    for (const message of messages) expect(message).not.toContain('secret-7731');
    expect(messages[2]).toContain('That model is not on your plan.');
    expect(messages[2]!.match(/y+/)![0].length).toBeLessThan(300);
  });
});

describe('clients that misbehave', () => {
  it('a request body trickling in is cut off with a 408 long before it would have finished', async () => {
    await start({ RELAY_BODY_TIMEOUT_MS: '300' });
    const { port } = new URL(relay.url);
    const started = Date.now();
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/api/v1/chat/completions', method: 'POST', headers: { 'Content-Type': 'application/json', 'Content-Length': '200' } }, (res) => {
        resolve(res.statusCode ?? 0);
        res.resume();
      });
      req.on('error', reject);
      let sent = 0;
      const drip = setInterval(() => {
        if (sent++ >= 199 || req.destroyed) return clearInterval(drip);
        req.write(' ');
      }, 100);
    });
    expect(status).toBe(408);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('a body trickling in after its request was answered is dropped, and the socket closed', async () => {
    await start();
    const { port } = new URL(relay.url);
    const host = `127.0.0.1:${port}`;
    const trickle = (head: string) =>
      new Promise<{ answered: string; closedAfterMs: number }>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let answered = '';
        let answeredAt = 0;
        const drip = setInterval(() => socket.writable && socket.write('x'), 1_000);
        socket.on('error', () => {});
        socket.on('data', (chunk: Buffer) => {
          if (!answered) answeredAt = Date.now();
          answered += chunk.toString('latin1');
        });
        socket.on('close', () => {
          clearInterval(drip);
          resolve({ answered: answered.split('\r\n')[0]!, closedAfterMs: Date.now() - answeredAt });
        });
        socket.write(`${head} HTTP/1.1\r\nHost: ${host}\r\nContent-Length: 100000\r\n\r\nx`);
        setTimeout(() => {
          socket.destroy();
          reject(new Error(`${head}: the socket was still open 15 s after its answer`));
        }, 15_000);
      });
    const results = await Promise.all([...Array.from({ length: 10 }, () => trickle('GET /')), ...Array.from({ length: 10 }, () => trickle('POST /api/nope'))]);
    expect(results.slice(0, 10).every((r) => r.answered === 'HTTP/1.1 200 OK')).toBe(true);
    expect(results.slice(10).every((r) => r.answered === 'HTTP/1.1 404 Not Found')).toBe(true);
    for (const r of results) expect(r.closedAfterMs).toBeLessThan(5_000);
  }, 30_000);

  it('an Origin of "null" or garbage is refused with a 403, not a 500', async () => {
    await start();
    for (const origin of ['null', 'not a url']) {
      const response = await fetch(`${relay.url}/api/health`, { headers: { Origin: origin } });
      expect(response.status).toBe(403);
    }
    expect(relay.logs.join('\n')).not.toMatch(/unexpected error/);
  });
});
