import { useNavigate, useParams } from '@solidjs/router';
import { createResource, createSignal, For, Index, Show } from 'solid-js';
import { createStillHere } from '../still-here.ts';
import { botFields, fieldKind, TEXT_LIMITS, type FieldDef } from '../../engine/for-ui.ts';
import { useClient } from '../context.ts';
import { fieldErrors } from './field-errors.ts';
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
      <h1 id="bot-form-title">{params.id ? `Edit ${existing()?.name ?? 'bot'}` : 'New bot'}</h1>
      <form class="stack wide" onSubmit={(e) => void save(e)} novalidate>
        <Field name="name" label="Name" maxLength={TEXT_LIMITS.name} value={form().name} error={errors().name} onInput={set('name')} />
        <PictureField client={client} name={form().name} hash={form().avatar} onChange={(avatar) => setForm((f) => ({ ...f, avatar }))} />
        <BackgroundField client={client} hash={form().background} onChange={(background) => setForm((f) => ({ ...f, background }))} />
        <Field name="pronouns" label="Pronouns" maxLength={TEXT_LIMITS.pronouns} hint="she/her, he/him, they/them…: how the story speaks of them." value={form().pronouns} error={errors().pronouns} onInput={set('pronouns')} />
        <Field name="persona" label="Persona" rows={4} maxLength={TEXT_LIMITS.long} hint="Who they are, how they act, what they want." value={form().persona} error={errors().persona} onInput={set('persona')} />
        <fieldset>
          <legend>Voice samples</legend>
          <p class="hint">Lines in their voice, so the narrator can match how they speak.</p>
          <Index each={form().voiceSamples}>
            {(sample, i) => (
              <div class="sample">
                <textarea
                  aria-label={`Voice sample ${i + 1}`}
                  rows={2}
                  value={sample()}
                  onInput={(e) => setForm((f) => ({ ...f, voiceSamples: f.voiceSamples.map((v, j) => (j === i ? e.currentTarget.value : v)) }))}
                />
                <Show when={form().voiceSamples.length > 1}>
                  <button type="button" aria-label={`Remove voice sample ${i + 1}`} onClick={() => setForm((f) => ({ ...f, voiceSamples: f.voiceSamples.filter((_, j) => j !== i) }))}>
                    Remove
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
              Add voice sample
            </button>
          </Show>
        </fieldset>
        <Field name="traits" label="Traits" hint="Separated by commas: wry, loyal, afraid of deep water" value={form().traits} error={errors().traits ?? Object.entries(errors()).find(([k]) => k.startsWith('traits.'))?.[1]} onInput={set('traits')} />
        <Field name="backstory" label="Backstory" rows={4} maxLength={TEXT_LIMITS.long} value={form().backstory} error={errors().backstory} onInput={set('backstory')} />
        <Field name="initialRelationship" label="Relationship to you" rows={2} maxLength={TEXT_LIMITS.relationship} hint="How they know you when the story starts." value={form().initialRelationship} error={errors().initialRelationship} onInput={set('initialRelationship')} />
        <fieldset>
          <legend>Greetings</legend>
          <p class="hint">Openings of a new chat, each a version you can swipe between at the start. With none, the kickoff opens.</p>
          <Index each={form().greetings}>
            {(greeting, i) => (
              <div class="sample">
                <textarea
                  aria-label={`Greeting ${i + 1}`}
                  rows={3}
                  maxLength={TEXT_LIMITS.long}
                  value={greeting()}
                  onInput={(e) => setForm((f) => ({ ...f, greetings: f.greetings.map((g, j) => (j === i ? e.currentTarget.value : g)) }))}
                />
                <button type="button" aria-label={`Remove greeting ${i + 1}`} onClick={() => setForm((f) => ({ ...f, greetings: f.greetings.filter((_, j) => j !== i) }))}>
                  Remove
                </button>
              </div>
            )}
          </Index>
          <Show when={errors()['greetings'] ?? Object.entries(errors()).find(([k]) => k.startsWith('greetings.'))?.[1]}>
            {(message) => <p class="error">{message()}</p>}
          </Show>
          <Show when={form().greetings.length < 20}>
            <button type="button" onClick={() => setForm((f) => ({ ...f, greetings: [...f.greetings, ''] }))}>
              Add greeting
            </button>
          </Show>
        </fieldset>
        <Field name="kickoff" label="Kickoff" rows={5} maxLength={TEXT_LIMITS.long} hint="The opening scene, in prose: what the scene is set from. With no greetings, it is also the first message of every new chat." value={form().kickoff} error={errors().kickoff} onInput={set('kickoff')} />
        <div class="field">
          <label for="field-language">Story language</label>
          <p class="hint" id="field-language-hint">
            What its chats are played in, unless a chat chooses another: the narrator, the memories and the summaries write in it.
          </p>
          <select id="field-language" aria-describedby="field-language-hint" onChange={(e) => setForm((f) => ({ ...f, language: e.currentTarget.value || null }))}>
            <option value="" selected={!form().language}>
              Follow each story (the language it is played in)
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
            <legend>Fields its chats start with</legend>
            <p class="hint">Saved from a chat’s story drawer (“Save these fields on …”); they go with the character card.</p>
            <ul class="plain">
              <For each={form().trackedFields}>
                {(field) => (
                  <li class="row">
                    <span>
                      {field.name} <span class="muted small-text">({fieldKind(field)}{field.per === 'character' ? ', for each character' : ', for the chat'})</span>
                    </span>
                    <button type="button" class="small quiet" aria-label={`Remove field ${field.name}`} onClick={() => setForm((f) => ({ ...f, trackedFields: f.trackedFields.filter((x) => x.id !== field.id) }))}>
                      Remove
                    </button>
                  </li>
                )}
              </For>
            </ul>
          </fieldset>
        </Show>
        <Show when={failure()}>{(m) => <p class="error" role="alert">{m()}</p>}</Show>
        <div class="row">
          <button type="submit">{params.id ? 'Save bot' : 'Create bot'}</button>
          <For each={params.id ? [1] : []}>{() => <a href="/bots">Cancel</a>}</For>
        </div>
      </form>
      <Show when={params.id ? existing() : null}>{(bot) => <CardInfo client={client} botId={bot().id} />}</Show>
      <Show when={params.id ? existing() : null}>{(bot) => <CardExport client={client} botId={bot().id} />}</Show>
      <Show when={params.id ? existing() : null}>{(bot) => <ResetBot client={client} botId={bot().id} name={bot().name} wasReset={bot().wasReset} />}</Show>
    </section>
  );
}
