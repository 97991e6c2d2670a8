import { createResource, createSignal, For, Show } from 'solid-js';
import type { Settings } from '../../engine/for-ui.ts';
import { useClient } from '../context.ts';
import { createLiveQuery } from '../live-query.ts';
import { relayFetch } from '../relay-token.ts';
import { modelLabel, type ListedModel } from '../model-size.ts';
import { SamplerFields, samplerFromForm } from '../sampler-fields.tsx';
import { t, uiLanguage } from '../i18n/index.ts';

/** The relay's models, or null when it cannot be asked (offline, relay down): the fields still take any id. */
async function relayModels(): Promise<ListedModel[] | null> {
  try {
    const response = await relayFetch('/api/v1/models');
    if (!response.ok) return null;
    const body = (await response.json()) as { data?: ListedModel[] };
    return (body.data ?? []).filter((m) => typeof m?.id === 'string').sort((a, b) => a.id.localeCompare(b.id));
  } catch {
    return null;
  }
}

/** Which models narrate and classify, and the knobs of the turn pipeline. */
/** `server` names the relay's current model server: the list is asked again when it changes. */
export function ModelSettings(props: { server: string }) {
  const client = useClient();
  const settings = createLiveQuery(client, { query: 'settings' }, () => client.engine.settings());
  const failures = createLiveQuery(client, { query: 'classifierFailures' }, () => client.engine.classifierFailures());
  const [models] = createResource(() => props.server, relayModels);
  const [message, setMessage] = createSignal<{ ok: boolean; text: string } | null>(null);

  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    const number = (name: string) => Number(data.get(name));
    const patch: Partial<Settings> = {
      narrativeModel: String(data.get('narrativeModel')),
      classifierModel: String(data.get('classifierModel')),
      classifierFallbacks: String(data.get('classifierFallbacks') ?? '').split(',').map((m) => m.trim()).filter(Boolean),
      oocMarker: String(data.get('oocMarker') ?? ''),
      retrievalK: number('retrievalK'),
      narrativeBudget: { hard: number('hardBudget'), soft: number('softBudget') },
      classifierBudget: number('classifierBudget'),
      classifierTimeoutMs: Math.round(number('classifierTimeout') * 1000),
      // Every knob is needed globally: an emptied field is refused by the settings' rule.
      sampler: { ...settings()!.sampler, ...samplerFromForm(data) },
      // One a line; a line's "\n" stays as typed, read as a new line when the reply is cut.
      budgetFromModel: data.get('budgetFromModel') === 'on',
      stopStrings: String(data.get('stopStrings') ?? '').split('\n').map((line) => line.trimEnd()).filter((line) => line.trim() !== ''),
    };
    try {
      await client.engine.changeSettings(patch);
      setMessage({ ok: true, text: t('models.saved') });
    } catch (e) {
      setMessage({ ok: false, text: e instanceof Error ? e.message : String(e) });
    }
  };

  const modelPicker = (name: 'narrativeModel' | 'classifierModel', label: string, current: string) => (
    <label>
      {label}
      <input name={name} list="relay-models" value={current} required />
    </label>
  );

  return (
    <Show when={settings()}>
      {(s) => (
        <form class="stack" onSubmit={(e) => void save(e)} aria-label={t('settings.models')}>
          <datalist id="relay-models">
            <For each={models() ?? []}>{(model) => <option value={model.id} label={modelLabel(model)} />}</For>
          </datalist>
          <Show when={models.error}>
            <p class="muted">{t('models.listFailed', String(models.error?.message ?? models.error))}</p>
          </Show>
          <Show when={models() !== undefined}>
            <p class="muted small">{models() ? t('models.available', models()!.length) : t('models.cannotList')}</p>
          </Show>
          {modelPicker('narrativeModel', t('models.narrative'), s().narrativeModel)}
          {modelPicker('classifierModel', t('models.classifier'), s().classifierModel)}
          <label>
            {t('models.fallbacks')}
            <input name="classifierFallbacks" value={s().classifierFallbacks.join(', ')} />
          </label>
          <div class="row">
            <label>
              {t('models.ooc')}
              <input name="oocMarker" value={s().oocMarker} size={4} maxLength={4} />
            </label>
            <label>
              {t('models.memories')}
              <input name="retrievalK" type="number" min={1} max={20} value={s().retrievalK} />
            </label>
            <label>
              {t('models.timeout')}
              <input name="classifierTimeout" type="number" min={1} max={120} value={s().classifierTimeoutMs / 1000} />
            </label>
          </div>
          <div class="row">
            <label>
              {t('models.softBudget')}
              <input name="softBudget" type="number" min={500} value={s().narrativeBudget.soft} />
            </label>
            <label>
              {t('models.hardBudget')}
              <input name="hardBudget" type="number" min={1000} value={s().narrativeBudget.hard} />
            </label>
            <label>
              {t('models.classifierBudget')}
              <input name="classifierBudget" type="number" min={500} value={s().classifierBudget} />
            </label>
          </div>
          <label class="check">
            <input type="checkbox" name="budgetFromModel" checked={s().budgetFromModel} /> {t('limits.fromModel')}
          </label>
          <label>
            {t('stops.label')}
            <textarea name="stopStrings" rows={2} aria-describedby="stop-strings-hint" value={s().stopStrings.join('\n')} />
          </label>
          <p class="hint" id="stop-strings-hint">
            {t('stops.hint')}
          </p>
          <fieldset>
            <legend>{t('models.sampling')}</legend>
            <SamplerFields value={s().sampler} />
          </fieldset>
          <Show when={message()}>{(m) => <p class={m().ok ? 'ok' : 'error'} role={m().ok ? 'status' : 'alert'}>{m().text}</p>}</Show>
          <button type="submit">{t('models.save')}</button>
          <Show when={(failures() ?? []).length > 0}>
            <details>
              <summary>{t('models.failures', failures()!.length)}</summary>
              <ul class="failures">
                <For each={failures()}>
                  {(f) => (
                    <li>
                      <strong>{f.task}</strong> · {f.model} · {new Date(f.ts).toLocaleString(uiLanguage())} · {f.error}
                    </li>
                  )}
                </For>
              </ul>
            </details>
          </Show>
        </form>
      )}
    </Show>
  );
}
