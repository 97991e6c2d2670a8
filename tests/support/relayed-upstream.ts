import { afterEach } from 'vitest';
import { createRelayClient } from '../../src/engine/llm/openai-client.ts';
import { startFakeUpstream, type FakeUpstream } from './fake-upstream.ts';
import { startRelay, TEST_KEY } from './relay-harness.ts';

/**
 * For a file of tests that play through the real relay: `relayed()` starts a fake upstream and a
 * relay in front of it with the test key, and gives the app's own LlmClient (the openai SDK)
 * pointed at the relay. Whatever a test started is closed after it.
 */
export function relayedUpstreams() {
  const open: { close: () => Promise<unknown> }[] = [];
  afterEach(async () => {
    for (const running of open.splice(0).reverse()) await running.close();
  });
  return async function relayed(prepare?: (upstream: FakeUpstream) => void) {
    const upstream = await startFakeUpstream();
    open.push(upstream);
    prepare?.(upstream);
    const relay = await startRelay({ FEATHERLESS_API_KEY: TEST_KEY, RELAY_UPSTREAM: upstream.url });
    open.push(relay);
    return { upstream, relay, llm: createRelayClient({ baseURL: `${relay.url}/api/v1` }) };
  };
}
