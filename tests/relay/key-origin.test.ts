import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../relay/config.ts';
import { Upstream } from '../../relay/upstream.ts';

describe('the key and its server', () => {
  it('goes in no request to another origin than the one it was given for, whatever the upstream says', async () => {
    const config = loadConfig({ FEATHERLESS_API_KEY: 'fl_header_layer_key_0123456789', RELAY_UPSTREAM: 'https://api.featherless.ai/v1' }, '/tmp');
    const sent: { url: string; headers: Record<string, string> }[] = [];
    const fakeFetch = (async (url: string, init: { headers: Record<string, string> }) => {
      sent.push({ url, headers: init.headers });
      return new Response('{}', { status: 200 });
    }) as unknown as typeof fetch;
    const upstream = new Upstream(config, (text) => text, fakeFetch);
    await upstream.request('/models', { method: 'GET', accept: 'application/json' });
    // The upstream changed under the key, by whatever path: the key does not follow it.
    config.upstream = 'http://127.0.0.1:8797/v1';
    await upstream.request('/models', { method: 'GET', accept: 'application/json' });
    expect(sent.map((r) => [new URL(r.url).origin, r.headers.Authorization ?? null])).toEqual([
      ['https://api.featherless.ai', 'Bearer fl_header_layer_key_0123456789'],
      ['http://127.0.0.1:8797', null],
    ]);
  });
});
