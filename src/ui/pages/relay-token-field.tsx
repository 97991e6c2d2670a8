import { useLocation } from '@solidjs/router';
import { createEffect, createSignal, Show } from 'solid-js';
import { relayToken, saveRelayToken } from '../relay-token.ts';

/** "Relay token": what a relay started with RELAY_TOKEN asks for; kept in this browser only. */
export function RelayTokenField() {
  const [saved, setSaved] = createSignal(false);
  let input: HTMLInputElement | undefined;
  const where = useLocation();
  // Arriving from "Enter it in Settings": the field is focused once the click that brought us here has settled.
  createEffect(() => {
    if (where.hash !== '#relay-token') return;
    setTimeout(() => {
      input?.scrollIntoView({ block: 'center' });
      input?.focus();
    }, 0);
  });
  const save = (event: SubmitEvent) => {
    event.preventDefault();
    saveRelayToken(input?.value ?? '');
    setSaved(true);
  };
  return (
    <form class="stack relay-token" onSubmit={save}>
      <label>
        Relay token
        <input
          id="relay-token"
          ref={input}
          type="password"
          autocomplete="off"
          maxLength={500}
          value={relayToken()}
          placeholder="Only if the relay was started with RELAY_TOKEN"
          onInput={() => setSaved(false)}
        />
      </label>
      <p class="muted small-text">Kept in this browser only: never in your stories, a backup or an export.</p>
      <div class="row">
        <button type="submit">Save token</button>
        <Show when={saved()}>
          <span class="ok" role="status">
            {relayToken() ? 'Token saved.' : 'Token removed.'}
          </span>
        </Show>
      </div>
    </form>
  );
}
