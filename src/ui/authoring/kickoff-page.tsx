import { useNavigate, useParams } from '@solidjs/router';
import { createResource, createSignal, For, Show } from 'solid-js';
import { kickoffSchema, type Kickoff } from '../../engine/for-ui.ts';
import { useClient } from '../context.ts';
import { fieldErrors } from './field-errors.ts';
import { createStillHere } from '../still-here.ts';
import { t } from '../i18n/index.ts';

type Path = string;

/** The kickoff fields shown first; the rest wait behind "More details". */
const ESSENTIALS: readonly Path[] = ['title', 'place.name', 'fictionTime', 'you.verb', 'bot.verb'];

/**
 * The kickoff, made editable: the classifier's reading of the opening scene (or plain defaults when
 * it fails), which the user corrects and confirms. Confirming starts the chat in one command.
 */
export function KickoffPage() {
  const client = useClient();
  const params = useParams<{ id: string }>();
  const navigate = useNavigate();
  const [bot] = createResource(() => params.id, (id) => client.engine.getBot(id));
  const [kickoff, setKickoff] = createSignal<Kickoff | null>(null);
  const [fromModel, setFromModel] = createSignal(true);
  const [errors, setErrors] = createSignal<Record<Path, string>>({});
  const [failure, setFailure] = createSignal<string | null>(null);
  const [starting, setStarting] = createSignal(false);
  /** "More details" is open: by the player, or because a field in it was refused. */
  const [more, setMore] = createSignal(false);
  const here = createStillHere();
  const [proposal] = createResource(
    () => params.id,
    async (id) => {
      const result = await client.engine.proposeKickoff(id);
      setKickoff(result.proposal);
      setFromModel(result.fromModel);
      return result;
    },
  );

  const update = (path: Path, value: unknown) =>
    setKickoff((current) => {
      if (!current) return current;
      const next = structuredClone(current) as unknown as Record<string, unknown>;
      const keys = path.split('.');
      let node = next;
      for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
      node[keys.at(-1)!] = value;
      return next as unknown as Kickoff;
    });
  const text = (path: Path, label: string, options: { rows?: number } = {}) => {
    const value = () => path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)?.[key], kickoff()) as string;
    const id = `kickoff-${path.replace(/\./g, '-')}`;
    return (
      <div class="field">
        <label for={id}>{label}</label>
        {options.rows ? (
          <textarea id={id} rows={options.rows} value={value() ?? ''} aria-invalid={Boolean(errors()[path])} onInput={(e) => update(path, e.currentTarget.value)} />
        ) : (
          <input id={id} value={value() ?? ''} aria-invalid={Boolean(errors()[path])} onInput={(e) => update(path, e.currentTarget.value)} />
        )}
        <Show when={errors()[path]}>{(m) => <p class="error">{m()}</p>}</Show>
      </div>
    );
  };
  const list = (path: 'you.holding' | 'bot.holding', label: string) => (
    <div class="field">
      <label for={`kickoff-${path.replace('.', '-')}`}>{label}</label>
      <input
        id={`kickoff-${path.replace('.', '-')}`}
        value={(path === 'you.holding' ? kickoff()?.you.holding : kickoff()?.bot.holding)?.join(', ') ?? ''}
        onInput={(e) => update(path, e.currentTarget.value.split(',').map((s) => s.trim()).filter(Boolean))}
      />
    </div>
  );

  /** The rest of what one side is doing when the story opens (what they do is among the essentials). */
  const activity = (who: 'you' | 'bot', legend: string) => (
    <fieldset>
      <legend>{legend}</legend>
      {text(`${who}.posture`, who === 'you' ? t('kickoff.yourPosture') : t('kickoff.theirPosture'))}
      {text(`${who}.slot`, who === 'you' ? t('kickoff.whereYouAre') : t('kickoff.whereTheyAre'))}
      {list(`${who}.holding`, who === 'you' ? t('kickoff.whatYouHold') : t('kickoff.whatTheyHold'))}
    </fieldset>
  );

  const start = async (event: SubmitEvent) => {
    event.preventDefault();
    const candidate = kickoff();
    const checked = kickoffSchema.safeParse(candidate);
    if (!checked.success) {
      const refused = fieldErrors(checked.error);
      setErrors(refused);
      // A refused field behind "More details" must be seen to be fixed.
      if (Object.keys(refused).some((path) => !ESSENTIALS.includes(path))) setMore(true);
      return;
    }
    setErrors({});
    setStarting(true);
    try {
      const chatId = await client.engine.startChat(params.id, checked.data);
      if (here()) navigate(`/chats/${chatId}`);
    } catch (e) {
      setFailure(e instanceof Error ? e.message : String(e));
    } finally {
      setStarting(false);
    }
  };

  return (
    <section aria-labelledby="kickoff-heading">
      <h1 id="kickoff-heading">{bot() ? t('kickoff.titleWith', bot()!.name) : t('kickoff.title')}</h1>
      <Show when={kickoff()} fallback={<p class="muted" aria-busy="true">{proposal.error ? t('kickoff.failed', String(proposal.error)) : t('kickoff.reading')}</p>}>
        {(k) => (
          <form class="stack wide" onSubmit={(e) => void start(e)} novalidate>
            <Show when={!fromModel()}>
              <p class="banner-inline" role="status">
                {t('kickoff.defaults')}
              </p>
            </Show>
            {text('title', t('kickoff.chatTitle'))}
            {text('place.name', t('kickoff.where'))}
            <div class="field">
              <label for="kickoff-time">{t('kickoff.when')}</label>
              <input
                id="kickoff-time"
                type="datetime-local"
                value={k().fictionTime.slice(0, 16)}
                aria-invalid={Boolean(errors().fictionTime)}
                onInput={(e) => update('fictionTime', `${e.currentTarget.value}:00`)}
              />
              <Show when={errors().fictionTime}>{(m) => <p class="error">{m()}</p>}</Show>
            </div>
            {text('you.verb', t('kickoff.youDoing'))}
            {text('bot.verb', bot() ? t('kickoff.botDoing', bot()!.name) : t('kickoff.theyDoing'))}
            <details class="more-details" open={more()} onToggle={(e) => setMore(e.currentTarget.open)}>
              <summary>{t('kickoff.more')}</summary>
              <div class="stack">
                <fieldset>
                  <legend>{t('kickoff.place')}</legend>
                  {text('place.type', t('kickoff.placeKind'))}
                  <div class="row">
                    <label class="check">
                      <input type="checkbox" checked={k().place.moving} onChange={(e) => update('place.moving', e.currentTarget.checked)} /> {t('kickoff.moving')}
                    </label>
                    <label class="check">
                      <input type="checkbox" checked={k().place.public} onChange={(e) => update('place.public', e.currentTarget.checked)} /> {t('kickoff.public')}
                    </label>
                    <label class="inline">
                      {t('kickoff.voicesCarry')}
                      <select value={k().place.audibleRange} onChange={(e) => update('place.audibleRange', e.currentTarget.value)}>
                        <For each={['whisper', 'room', 'building', 'street']}>{(range) => <option value={range}>{t(`kickoff.ranges.${range as 'room'}`)}</option>}</For>
                      </select>
                    </label>
                  </div>
                </fieldset>
                {text('weather', t('kickoff.weather'))}
                {activity('you', t('kickoff.you'))}
                {activity('bot', bot()?.name ?? t('story.theBot'))}
                <fieldset>
                  <legend>{bot() ? t('kickoff.thinksOfYou', bot()!.name) : t('kickoff.theyThinkOfYou')}</legend>
                  {text('edge.summary', t('kickoff.howTheySeeYou'), { rows: 3 })}
                  <div class="field">
                    <label for="kickoff-facts">{t('kickoff.whatTheyKnow')}</label>
                    <textarea
                      id="kickoff-facts"
                      rows={3}
                      value={k().edge.facts.join('\n')}
                      onInput={(e) => update('edge.facts', e.currentTarget.value.split('\n').map((s) => s.trim()).filter(Boolean))}
                    />
                    <p class="hint">{t('kickoff.oneFactALine')}</p>
                  </div>
                </fieldset>
              </div>
            </details>
            <Show when={failure()}>{(m) => <p class="error" role="alert">{m()}</p>}</Show>
            <button type="submit" disabled={starting()}>
              {t('kickoff.start')}
            </button>
          </form>
        )}
      </Show>
    </section>
  );
}
