import { performance } from 'node:perf_hooks';
import { sseChunk, startFakeUpstream, startSse } from '../tests/support/fake-upstream.ts';
import { startRelay, TEST_KEY } from '../tests/support/relay-harness.ts';
import { fmt, median, printTable } from './table.ts';

const RUNS = Number(process.env.BENCH_RELAY_RUNS ?? 40);
const CHUNKS = 30;

/**
 * The relay's added latency: the fake upstream stamps each chunk as it writes it, the client stamps
 * it as it arrives (same process, same clock). Direct and relayed runs alternate so machine noise
 * hits both alike.
 */
export async function benchRelay(): Promise<void> {
  const upstream = await startFakeUpstream();
  const written: number[][] = [];
  upstream.setFallback(async (req, res) => {
    if (!req.path.endsWith('/chat/completions')) return void res.end('{}');
    const stamps: number[] = [];
    written.push(stamps);
    startSse(res);
    for (let i = 0; i < CHUNKS; i++) {
      stamps.push(performance.now());
      res.write(sseChunk(`token${i} `));
      await new Promise((r) => setTimeout(r, 2));
    }
    res.end('data: [DONE]\n\n');
  });
  const relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url, RELAY_MAX_STREAMS: '100' });
  const body = JSON.stringify({ model: 'small-8b', stream: true, messages: [{ role: 'user', content: 'Hi' }] });

  async function run(url: string) {
    const sent = performance.now();
    const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${TEST_KEY}` }, body });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    const received: number[] = [];
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const now = performance.now();
      text += decoder.decode(value, { stream: true });
      const count = (text.match(/token\d+/g) ?? []).length;
      while (received.length < count) received.push(now);
    }
    const stamps = written.at(-1)!;
    return {
      firstToken: received[0]! - sent,
      perChunk: received.map((t, i) => t - stamps[i]!),
    };
  }

  const direct = { first: [] as number[], chunk: [] as number[] };
  const relayed = { first: [] as number[], chunk: [] as number[] };
  for (let i = 0; i < RUNS + 3; i++) {
    const a = await run(`${upstream.url}/chat/completions`);
    const b = await run(`${relay.url}/api/v1/chat/completions`);
    if (i < 3) continue; // warm-up
    direct.first.push(a.firstToken);
    direct.chunk.push(...a.perChunk);
    relayed.first.push(b.firstToken);
    relayed.chunk.push(...b.perChunk);
  }
  await relay.close();
  await upstream.close();

  const p = (values: number[], q: number) => [...values].sort((x, y) => x - y)[Math.floor(values.length * q)] ?? NaN;
  printTable(`Relay latency (${RUNS} streams of ${CHUNKS} chunks each, loopback, fake upstream)`, [
    ['time to first token, direct (median)', `${fmt(median(direct.first), 2)} ms`],
    ['time to first token, via relay (median)', `${fmt(median(relayed.first), 2)} ms`],
    ['relay added to first token (median)', `${fmt(median(relayed.first) - median(direct.first), 2)} ms`],
    ['first-token ratio relay/direct', `${fmt(median(relayed.first) / median(direct.first), 2)}x`],
    ['chunk latency write->client, direct (median / p95)', `${fmt(median(direct.chunk), 3)} / ${fmt(p(direct.chunk, 0.95), 3)} ms`],
    ['chunk latency write->client, via relay (median / p95)', `${fmt(median(relayed.chunk), 3)} / ${fmt(p(relayed.chunk, 0.95), 3)} ms`],
    ['relay added per chunk (median)', `${fmt(median(relayed.chunk) - median(direct.chunk), 3)} ms`],
  ]);
}
