import { createSignal, For, Show } from 'solid-js';
import { t } from '../i18n/index.ts';
import { createAction } from '../action.ts';
import { Avatar } from '../avatar.tsx';
import type { AppClient } from '../engine-client.ts';
import { ErrorNote } from '../error-note.tsx';
import { createLiveQuery } from '../live-query.ts';
import { PictureField } from '../picture-field.tsx';

interface Draft {
  id: string | null;
  name: string;
  pronouns: string;
  persona: string;
  avatar: string | null;
}

/**
 * Settings → "Your personas": the "you"s a player plays (a knight in one story, a detective in
 * another). One is the default, which new chats play and "Who you are" edits; a chat picks its own
 * in its Story state.
 */
export function PersonasSection(props: { client: AppClient }) {
  const personas = createLiveQuery(props.client, { query: 'listPersonas' }, () => props.client.engine.listPersonas());
  const { run, busy, error } = createAction();
  const [draft, setDraft] = createSignal<Draft | null>(null);
  const save = (event: SubmitEvent) => {
    event.preventDefault();
    const d = draft();
    if (!d) return;
    void run(async () => {
      await props.client.engine.savePersona({ name: d.name, pronouns: d.pronouns, persona: d.persona, ...(d.avatar ? { avatar: d.avatar } : {}) }, d.id);
      setDraft(null);
    });
  };
  const field = (key: 'name' | 'pronouns' | 'persona') => (event: { currentTarget: { value: string } }) => setDraft({ ...draft()!, [key]: event.currentTarget.value });
  return (
    <div class="stack personas" data-testid="personas">
      <ul class="plain persona-list" aria-label={t('personas.list')}>
        <For each={personas() ?? []}>
          {(persona) => (
            <li class="row">
              <Avatar client={props.client} name={persona.name} hash={persona.avatar} />
              <strong>{persona.name}</strong>
              <Show when={persona.isDefault} fallback={<span class="muted small-text">{persona.pronouns}</span>}>
                <span class="muted small-text">{t('personas.default')}</span>
              </Show>
              <span class="row persona-actions">
                <button type="button" class="small quiet" disabled={busy()} onClick={() => setDraft({ id: persona.id, name: persona.name, pronouns: persona.pronouns, persona: persona.persona, avatar: persona.avatar })}>
                  {t('personas.edit', persona.name)}
                </button>
                <Show when={!persona.isDefault}>
                  <button type="button" class="small quiet" disabled={busy()} onClick={() => void run(() => props.client.engine.setDefaultPersona(persona.id))}>
                    {t('personas.makeDefault', persona.name)}
                  </button>
                </Show>
                <Show when={persona.id !== 'you' && !persona.isDefault}>
                  <button type="button" class="small quiet" disabled={busy()} onClick={() => void run(() => props.client.engine.removePersona(persona.id))}>
                    {t('personas.remove', persona.name)}
                  </button>
                </Show>
              </span>
            </li>
          )}
        </For>
      </ul>
      <ErrorNote message={error()} />
      <Show
        when={draft()}
        fallback={
          <button type="button" class="self-start" onClick={() => setDraft({ id: null, name: '', pronouns: '', persona: '', avatar: null })}>
            {t('personas.add')}
          </button>
        }
      >
        {(d) => (
          <form class="stack persona-form" aria-label={d().id ? t('personas.edit', d().name || t('personas.persona')) : t('personas.newPersona')} onSubmit={save}>
            <label>
              {t('settings.name')}
              <input required maxLength={80} value={d().name} onInput={field('name')} autocomplete="off" />
            </label>
            <PictureField client={props.client} name={d().name} hash={d().avatar} onChange={(avatar) => setDraft({ ...d(), avatar })} />
            <label>
              {t('settings.pronouns')}
              <input maxLength={40} value={d().pronouns} onInput={field('pronouns')} autocomplete="off" />
            </label>
            <label>
              {t('settings.persona')}
              <textarea rows={3} value={d().persona} onInput={field('persona')} />
            </label>
            <div class="button-row">
              <button type="submit" disabled={busy()}>
                {t('personas.save')}
              </button>
              <button type="button" class="quiet" onClick={() => setDraft(null)}>
                {t('personas.cancel')}
              </button>
            </div>
          </form>
        )}
      </Show>
    </div>
  );
}
