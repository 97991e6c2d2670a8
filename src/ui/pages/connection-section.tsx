import { createResource, createSignal, For, Show } from 'solid-js';
import { relayJson } from '../relay-json.ts';
import { modelLabel, type ListedModel } from '../model-size.ts';
// The relay's own description of what it tells the browser (a type only: nothing of the relay is bundled).
import type { ConnectionStatus } from '../../../relay/connection.ts';
import { t } from '../i18n/index.ts';


/** A device's own token syncs and reaches the model; changing the connection takes the relay's (asked for then, never kept). */
const ownerOnly = (error: unknown) => (error as { code?: unknown }).code === 'owner_only';

/**
 * Settings → Connection: the model server the relay forwards to, set without a terminal. The key
 * goes once to the relay, which keeps it and never gives it back: this page knows only its last
 * four characters.
 */
export function ConnectionSection(props: { onChanged: () => void }) {
  // Never rejects: a resource in error throws where it is read, and the relay may vanish at any time.
  const [loadError, setLoadError] = createSignal<string | null>(null);
  const [status, { mutate }] = createResource(() =>
    relayJson<ConnectionStatus>('/api/connection').catch((error: unknown) => {
      setLoadError(error instanceof Error ? error.message : String(error));
      return null;
    }),
  );
  const [kind, setKind] = createSignal<ConnectionStatus['kind'] | null>(null);
  const [replacing, setReplacing] = createSignal(false);
  const [busy, setBusy] = createSignal(false);
  const [message, setMessage] = createSignal<{ ok: boolean; text: string } | null>(null);
  const [models, setModels] = createSignal<ListedModel[] | null>(null);
  const [askOwner, setAskOwner] = createSignal(false);
  let ownerToken: HTMLInputElement | undefined;
  /** The relay token typed for this change, when the relay asked for it. */
  const asOwner = (): Record<string, string> => (askOwner() && ownerToken?.value.trim() ? { Authorization: `Bearer ${ownerToken.value.trim()}` } : {});
  const chosen = () => kind() ?? status()?.kind ?? 'featherless';

  const act = async (work: () => Promise<ConnectionStatus>, done: string) => {
    setBusy(true);
    setMessage(null);
    setModels(null);
    try {
      mutate(await work());
      setReplacing(false);
      setKind(null);
      setMessage({ ok: true, text: done });
      setAskOwner(false);
      props.onChanged();
    } catch (error) {
      if (ownerOnly(error)) setAskOwner(true);
      setMessage({ ok: false, text: ownerOnly(error) ? t('connection.ownerOnly') : error instanceof Error ? error.message : String(error) });
    } finally {
      setBusy(false);
    }
  };

  const save = (event: SubmitEvent) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const apiKey = String(data.get('apiKey') ?? '').trim();
    const body =
      chosen() === 'demo'
        ? { kind: 'demo' }
        : chosen() === 'custom'
          ? { kind: 'custom', baseUrl: String(data.get('baseUrl') ?? ''), ...(apiKey ? { apiKey } : {}) }
          : { kind: 'featherless', ...(apiKey ? { apiKey } : {}) };
    void act(async () => {
      const saved = await relayJson<ConnectionStatus>('/api/connection', { method: 'PUT', body: JSON.stringify(body), headers: asOwner() });
      form.reset();
      return saved;
    }, t('connection.saved'));
  };

  const test = async () => {
    setBusy(true);
    setMessage(null);
    try {
      const list = await relayJson<{ data: ListedModel[] }>('/api/v1/models');
      setModels(list.data);
      setMessage({ ok: true, text: list.data.length ? t('connection.connected', list.data.length) : t('connection.noModels') });
    } catch (error) {
      setMessage({ ok: false, text: t('connection.broken', error instanceof Error ? error.message : String(error)) });
    } finally {
      setBusy(false);
    }
  };

  return (
    <Show when={status()} fallback={<p class="muted">{loadError() ? t('connection.unreadable', loadError()!) : t('connection.reading')}</p>}>
      {(s) => (
        <form class="stack connection" aria-label={t('connection.server')} onSubmit={save}>
          <p data-testid="connection-state">
            {s().kind === 'demo'
              ? t('connection.demoChosen')
              : s().mode === 'demo'
              ? t('connection.demoDefault')
              : t('connection.status', s().kind === 'featherless' ? 'Featherless' : s().baseUrl, s().keySet ? t('connection.keySet', s().keyHint ?? '') : t('connection.noKey'), s().source === 'environment' ? t('connection.fromEnv') : '')}
          </p>
          <fieldset>
            <legend>{t('connection.server')}</legend>
            <label class="check">
              <input type="radio" name="kind" value="featherless" checked={chosen() === 'featherless'} onChange={() => setKind('featherless')} /> Featherless
            </label>
            <label class="check">
              <input type="radio" name="kind" value="custom" checked={chosen() === 'custom'} onChange={() => setKind('custom')} /> {t('connection.custom')}
              (llama.cpp, Ollama, …)
            </label>
            <label class="check">
              <input type="radio" name="kind" value="demo" checked={chosen() === 'demo'} onChange={() => setKind('demo')} /> {t('connection.demo')}
            </label>
          </fieldset>
          <Show when={chosen() === 'custom'}>
            <label>
              {t('connection.address')}
              <input name="baseUrl" type="url" required placeholder="http://127.0.0.1:8080/v1" value={s().kind === 'custom' ? s().baseUrl : ''} />
            </label>
          </Show>
          <Show
            when={chosen() !== 'demo'}
          >
          <Show
            when={s().keySet && !replacing() && chosen() === s().kind}
            fallback={
              <label>
                {t('connection.apiKey')}
                {chosen() === 'custom' ? t('connection.ifNeeded') : ''}
                <input name="apiKey" type="password" autocomplete="off" spellcheck={false} maxLength={400} required={chosen() === 'featherless' && !(s().keySet && s().kind === 'featherless')} />
              </label>
            }
          >
            <p class="row">
              <span>{t('connection.keySetCap', s().keyHint ?? '')}</span>
              <button type="button" class="small" onClick={() => setReplacing(true)}>
                {t('connection.replace')}
              </button>
              <Show when={s().source === 'app'}>
                <button type="button" class="small quiet" disabled={busy()} onClick={() => void act(() => relayJson('/api/connection', { method: 'DELETE', headers: asOwner() }), t('connection.removed'))}>
                  {t('botForm.remove')}
                </button>
              </Show>
            </p>
          </Show>
          </Show>
          <Show when={askOwner()}>
            <label>
              {t('settings.relayToken')}
              <input ref={ownerToken} name="ownerToken" type="password" autocomplete="off" maxLength={500} required />
            </label>
          </Show>
          <div class="button-row">
            <Show when={chosen() === 'demo' ? s().kind !== 'demo' : !s().keySet || replacing() || chosen() !== s().kind}>
              <button type="submit" disabled={busy()}>
                {t('connection.save')}
              </button>
            </Show>
            <button type="button" disabled={busy()} onClick={() => void test()}>
              {t('connection.test')}
            </button>
          </div>
          <Show when={message()}>
            {(m) => (
              <p class={m().ok ? 'ok' : 'error'} role={m().ok ? 'status' : 'alert'} data-testid="connection-message">
                {m().text}
              </p>
            )}
          </Show>
          <Show when={models()?.length}>
            <ul class="plain small-text model-list" aria-label={t('connection.availableModels')}>
              <For each={models()!.slice(0, 12)}>{(model) => <li>{modelLabel(model)}</li>}</For>
              <Show when={models()!.length > 12}>
                <li class="muted">{t('connection.andMore', models()!.length - 12)}</li>
              </Show>
            </ul>
          </Show>
        </form>
      )}
    </Show>
  );
}
