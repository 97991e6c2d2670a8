import { useLocation } from '@solidjs/router';
import { createEffect, createSignal, Show } from 'solid-js';
import { hasDeviceToken, relayToken } from '../relay-token.ts';
import { t } from '../i18n/index.ts';

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
    // Trading a token with the relay loads only when one is entered.
    void import('../device-token.ts').then(({ saveRelayToken }) => saveRelayToken(input?.value ?? '')).then(() => {
      if (input) input.value = hasDeviceToken() ? '' : relayToken();
      setSaved(true);
    });
  };
  return (
    <form class="stack relay-token" onSubmit={save}>
      <label>
        {t('settings.relayToken')}
        <input
          id="relay-token"
          ref={input}
          type="password"
          autocomplete="off"
          maxLength={500}
          value={hasDeviceToken() ? '' : relayToken()}
          placeholder={t('token.placeholder')}
          onInput={() => setSaved(false)}
        />
      </label>
      <p class="muted small-text">{hasDeviceToken() ? t('token.ownToken') : t('token.kept')}</p>
      <div class="row">
        <button type="submit">{t('token.save')}</button>
        <Show when={saved()}>
          <span class="ok" role="status">
            {hasDeviceToken() ? t('token.traded') : relayToken() ? t('token.saved') : t('token.removed')}
          </span>
        </Show>
      </div>
    </form>
  );
}
