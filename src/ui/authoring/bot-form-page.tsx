import { useNavigate, useParams } from '@solidjs/router';
import { createResource, createSignal, For, Index, Show } from 'solid-js';
import { createStillHere } from '../still-here.ts';
import { botFields, TEXT_LIMITS, type FieldDef } from '../../engine/for-ui.ts';
import { fieldKindText } from '../field-kind.ts';
import { useClient } from '../context.ts';
import { fieldErrors } from './field-errors.ts';
import { t } from '../i18n/index.ts';
import { ResetBot } from './reset-bot.tsx';
import { BackgroundField, PictureField } from '../picture-field.tsx';
import { CardExport } from './card-export.tsx';
import { CardInfo } from './card-info.tsx';
import { storyLanguageChoices } from '../story-languages.ts';

interface BotDraft {
  name: string;
  pronouns: string;
  avatar: string | null;
  /** The picture behind the story in its chats. */
  background: string | null;
  /** The openings of a new chat (a card's first message and alternate greetings). */
  greetings: string[];
  persona: string;
  voiceSamples: string[];
  traits: string;
  backstory: string;
  initialRelationship: string;
  kickoff: string;
  /** The fields of the player's own its chats start with: saved from a chat's drawer, kept here as they are. */
  trackedFields: FieldDef[];
  /** The language its chats are played in unless one chooses another; null: each follows its story. */
  language: string | null;
}

const empty: BotDraft = { name: '', pronouns: '', avatar: null, background: null, greetings: [], persona: '', voiceSamples: [''], traits: '', backstory: '', initialRelationship: '', kickoff: '', trackedFields: [], language: null };

function Field(props: { name: string; label: string; error?: string; hint?: string; rows?: number; maxLength?: number; value: string; onInput: (v: string) => void }) {
  const id = `field-${props.name}`;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <Show when={props.hint}>
        <p class="hint" id={`${id}-hint`}>
          {props.hint}
        </p>
      </Show>
      <Show
        when={props.rows}
        fallback={
          <input
            id={id}
            name={props.name}
            maxLength={props.maxLength}
            value={props.value}
            aria-invalid={Boolean(props.error)}
            aria-describedby={props.error ? `${id}-error` : props.hint ? `${id}-hint` : undefined}
            onInput={(e) => props.onInput(e.currentTarget.value)}
          />
        }
      >
        <textarea
          id={id}
          name={props.name}
          rows={props.rows}
          maxLength={props.maxLength}
          value={props.value}
          aria-invalid={Boolean(props.error)}
          aria-describedby={props.error ? `${id}-error` : props.hint ? `${id}-hint` : undefined}
          onInput={(e) => props.onInput(e.currentTarget.value)}
        />
      </Show>
      <Show when={props.error}>
        <p class="error" id={`${id}-error`}>
          {props.error}
        </p>
      </Show>
    </div>
  );
}

/** New bot and edit bot: every field of a bot, checked by the same schema the event uses. */
export function BotFormPage() {
  const client = useClient();
  const params = useParams<{ id?: string }>();
  const navigate = useNavigate();
  const [form, setForm] = createSignal<BotDraft>(empty);
  const [errors, setErrors] = createSignal<Record<string, string>>({});
  const [failure, setFailure] = createSignal<string | null>(null);
  const [existing] = createResource(
    () => params.id,
    async (id) => {
      const bot = await client.engine.getBot(id);
      if (bot) {
        setForm({ ...bot, voiceSamples: bot.voiceSamples.length ? bot.voiceSamples : [''], traits: bot.traits.join(', ') });
      }
      return bot ?? null;
    },
  );
  const set = (key: keyof BotDraft) => (value: string) => setForm((f) => ({ ...f, [key]: value }));
  const here = createStillHere();

  const save = async (event: SubmitEvent) => {
    event.preventDefault();
    const f = form();
    const candidate = {
      name: f.name,
      pronouns: f.pronouns,
      ...(f.avatar ? { avatar: f.avatar } : {}),
      ...(f.background ? { background: f.background } : {}),
      // Empty boxes are left out, as with voice samples.
      ...(f.greetings.some((g) => g.trim()) ? { greetings: f.greetings.map((g) => g.trim()).filter(Boolean) } : {}),
      persona: f.persona,
      voiceSamples: f.voiceSamples.map((v) => v.trim()).filter(Boolean),
      traits: f.traits.split(',').map((t) => t.trim()).filter(Boolean),
      backstory: f.backstory,
      initialRelationship: f.initialRelationship,
      kickoff: f.kickoff,
      ...(f.trackedFields.length ? { trackedFields: f.trackedFields } : {}),
      ...(f.language ? { language: f.language } : {}),
    };
    const checked = botFields.safeParse(candidate);
    if (!checked.success) {
      setErrors(fieldErrors(checked.error));
      document.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    setErrors({});
    try {
      const botId = await client.engine.saveBot(checked.data, params.id ?? null);
      if (here()) navigate(params.id ? '/bots' : `/bots/${botId}/start`);
    } catch (e) {
      setFailure(e instanceof Error ? e.message : String(e));
    }
  };

  return (
    <section aria-labelledby="bot-form-title">
      <h1 id="bot-form-title">{params.id ? t('botForm.edit', existing()?.name ?? t('botForm.bot')) : t('bots.newBot')}</h1>
      <form class="stack wide" onSubmit={(e) => void save(e)} novalidate>
        <Field name="name" label={t('settings.name')} maxLength={TEXT_LIMITS.name} value={form().name} error={errors().name} onInput={set('name')} />
        <PictureField client={client} name={form().name} hash={form().avatar} onChange={(avatar) => setForm((f) => ({ ...f, avatar }))} />
        <BackgroundField client={client} hash={form().background} onChange={(background) => setForm((f) => ({ ...f, background }))} />
        <Field name="pronouns" label={t('settings.pronouns')} maxLength={TEXT_LIMITS.pronouns} hint={t('botForm.pronounsHint')} value={form().pronouns} error={errors().pronouns} onInput={set('pronouns')} />
        <Field name="persona" label={t('settings.persona')} rows={4} maxLength={TEXT_LIMITS.long} hint={t('botForm.personaHint')} value={form().persona} error={errors().persona} onInput={set('persona')} />
        <fieldset>
          <legend>{t('botForm.voiceSamples')}</legend>
          <p class="hint">{t('botForm.voiceSamplesHint')}</p>
          <Index each={form().voiceSamples}>
            {(sample, i) => (
              <div class="sample">
                <textarea
                  aria-label={t('botForm.voiceSample', i + 1)}
                  rows={2}
                  value={sample()}
                  onInput={(e) => setForm((f) => ({ ...f, voiceSamples: f.voiceSamples.map((v, j) => (j === i ? e.currentTarget.value : v)) }))}
                />
                <Show when={form().voiceSamples.length > 1}>
                  <button type="button" aria-label={t('botForm.removeVoiceSample', i + 1)} onClick={() => setForm((f) => ({ ...f, voiceSamples: f.voiceSamples.filter((_, j) => j !== i) }))}>
                    {t('botForm.remove')}
                  </button>
                </Show>
              </div>
            )}
          </Index>
          <Show when={errors()['voiceSamples'] ?? Object.entries(errors()).find(([k]) => k.startsWith('voiceSamples.'))?.[1]}>
            {(message) => <p class="error">{message()}</p>}
          </Show>
          <Show when={form().voiceSamples.length < 20}>
            <button type="button" onClick={() => setForm((f) => ({ ...f, voiceSamples: [...f.voiceSamples, ''] }))}>
              {t('botForm.addVoiceSample')}
            </button>
          </Show>
        </fieldset>
        <Field name="traits" label={t('botForm.traits')} hint={t('botForm.traitsHint')} value={form().traits} error={errors().traits ?? Object.entries(errors()).find(([k]) => k.startsWith('traits.'))?.[1]} onInput={set('traits')} />
        <Field name="backstory" label={t('botForm.backstory')} rows={4} maxLength={TEXT_LIMITS.long} value={form().backstory} error={errors().backstory} onInput={set('backstory')} />
        <Field name="initialRelationship" label={t('botForm.relationship')} rows={2} maxLength={TEXT_LIMITS.relationship} hint={t('botForm.relationshipHint')} value={form().initialRelationship} error={errors().initialRelationship} onInput={set('initialRelationship')} />
        <fieldset>
          <legend>{t('botForm.greetings')}</legend>
          <p class="hint">{t('botForm.greetingsHint')}</p>
          <Index each={form().greetings}>
            {(greeting, i) => (
              <div class="sample">
                <textarea
                  aria-label={t('botForm.greeting', i + 1)}
                  rows={3}
                  maxLength={TEXT_LIMITS.long}
                  value={greeting()}
                  onInput={(e) => setForm((f) => ({ ...f, greetings: f.greetings.map((g, j) => (j === i ? e.currentTarget.value : g)) }))}
                />
                <button type="button" aria-label={t('botForm.removeGreeting', i + 1)} onClick={() => setForm((f) => ({ ...f, greetings: f.greetings.filter((_, j) => j !== i) }))}>
                  {t('botForm.remove')}
                </button>
              </div>
            )}
          </Index>
          <Show when={errors()['greetings'] ?? Object.entries(errors()).find(([k]) => k.startsWith('greetings.'))?.[1]}>
            {(message) => <p class="error">{message()}</p>}
          </Show>
          <Show when={form().greetings.length < 20}>
            <button type="button" onClick={() => setForm((f) => ({ ...f, greetings: [...f.greetings, ''] }))}>
              {t('botForm.addGreeting')}
            </button>
          </Show>
        </fieldset>
        <Field name="kickoff" label={t('botForm.kickoff')} rows={5} maxLength={TEXT_LIMITS.long} hint={t('botForm.kickoffHint')} value={form().kickoff} error={errors().kickoff} onInput={set('kickoff')} />
        <div class="field">
          <label for="field-language">{t('drawer.language')}</label>
          <p class="hint" id="field-language-hint">
            {t('botForm.languageHint')}
          </p>
          <select id="field-language" aria-describedby="field-language-hint" onChange={(e) => setForm((f) => ({ ...f, language: e.currentTarget.value || null }))}>
            <option value="" selected={!form().language}>
              {t('botForm.languageFollow')}
            </option>
            <For each={storyLanguageChoices()}>
              {(option) => (
                <option value={option.tag} selected={form().language === option.tag}>
                  {option.label}
                </option>
              )}
            </For>
          </select>
        </div>
        <Show when={form().trackedFields.length}>
          <fieldset class="stack">
            <legend>{t('botForm.fields')}</legend>
            <p class="hint">{t('botForm.fieldsHint')}</p>
            <ul class="plain">
              <For each={form().trackedFields}>
                {(field) => (
                  <li class="row">
                    <span>
                      {field.name} <span class="muted small-text">({fieldKindText(field)}{field.per === 'character' ? t('botForm.forEachCharacter') : t('botForm.forTheChat')})</span>
                    </span>
                    <button type="button" class="small quiet" aria-label={t('fields.remove', field.name)} onClick={() => setForm((f) => ({ ...f, trackedFields: f.trackedFields.filter((x) => x.id !== field.id) }))}>
                      {t('botForm.remove')}
                    </button>
                  </li>
                )}
              </For>
            </ul>
          </fieldset>
        </Show>
        <Show when={failure()}>{(m) => <p class="error" role="alert">{m()}</p>}</Show>
        <div class="row">
          <button type="submit">{params.id ? t('botForm.save') : t('botForm.create')}</button>
          <For each={params.id ? [1] : []}>{() => <a href="/bots">{t('edit.cancel')}</a>}</For>
        </div>
      </form>
      <Show when={params.id ? existing() : null}>{(bot) => <CardInfo client={client} botId={bot().id} />}</Show>
      <Show when={params.id ? existing() : null}>{(bot) => <CardExport client={client} botId={bot().id} />}</Show>
      <Show when={params.id ? existing() : null}>{(bot) => <ResetBot client={client} botId={bot().id} name={bot().name} wasReset={bot().wasReset} />}</Show>
    </section>
  );
}
