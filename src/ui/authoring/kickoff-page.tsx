import { useNavigate, useParams } from '@solidjs/router';
import { createResource, createSignal, For, Show } from 'solid-js';
import { kickoffSchema, type Kickoff } from '../../engine/for-ui.ts';
import { useClient } from '../context.ts';
import { fieldErrors } from './field-errors.ts';
import { createStillHere } from '../still-here.ts';

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
  const activity = (who: 'you' | 'bot', legend: string, words: { your: string; you: string; are: string }) => (
    <fieldset>
      <legend>{legend}</legend>
      {text(`${who}.posture`, `${words.your} posture`)}
      {text(`${who}.slot`, `Where ${words.you} ${words.are}`)}
      {list(`${who}.holding`, `What ${words.you} hold`)}
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
      <h1 id="kickoff-heading">Set the scene{bot() ? ` with ${bot()!.name}` : ''}</h1>
      <Show when={kickoff()} fallback={<p class="muted" aria-busy="true">{proposal.error ? `Could not prepare the scene: ${String(proposal.error)}` : 'Reading the kickoff…'}</p>}>
        {(k) => (
          <form class="stack wide" onSubmit={(e) => void start(e)} novalidate>
            <Show when={!fromModel()}>
              <p class="banner-inline" role="status">
                The scene could not be worked out from the kickoff automatically. These are plain defaults: adjust them as you like.
              </p>
            </Show>
            {text('title', 'Title')}
            {text('place.name', 'Where it begins')}
            <div class="field">
              <label for="kickoff-time">When (in the story)</label>
              <input
                id="kickoff-time"
                type="datetime-local"
                value={k().fictionTime.slice(0, 16)}
                aria-invalid={Boolean(errors().fictionTime)}
                onInput={(e) => update('fictionTime', `${e.currentTarget.value}:00`)}
              />
              <Show when={errors().fictionTime}>{(m) => <p class="error">{m()}</p>}</Show>
            </div>
            {text('you.verb', 'What you are doing')}
            {text('bot.verb', `What ${bot()?.name ?? 'they'} is doing`)}
            <details class="more-details" open={more()} onToggle={(e) => setMore(e.currentTarget.open)}>
              <summary>More details</summary>
              <div class="stack">
                <fieldset>
                  <legend>Place</legend>
                  {text('place.type', 'Kind of place')}
                  <div class="row">
                    <label class="check">
                      <input type="checkbox" checked={k().place.moving} onChange={(e) => update('place.moving', e.currentTarget.checked)} /> Moving
                    </label>
                    <label class="check">
                      <input type="checkbox" checked={k().place.public} onChange={(e) => update('place.public', e.currentTarget.checked)} /> Public
                    </label>
                    <label class="inline">
                      Voices carry
                      <select value={k().place.audibleRange} onChange={(e) => update('place.audibleRange', e.currentTarget.value)}>
                        <For each={['whisper', 'room', 'building', 'street']}>{(range) => <option value={range}>{range}</option>}</For>
                      </select>
                    </label>
                  </div>
                </fieldset>
                {text('weather', 'Weather')}
                {activity('you', 'You', { your: 'Your', you: 'you', are: 'are' })}
                {activity('bot', bot()?.name ?? 'The bot', { your: 'Their', you: 'they', are: 'are' })}
                <fieldset>
                  <legend>What {bot()?.name ?? 'they'} thinks of you</legend>
                  {text('edge.summary', 'How they see you', { rows: 3 })}
                  <div class="field">
                    <label for="kickoff-facts">What they know about you</label>
                    <textarea
                      id="kickoff-facts"
                      rows={3}
                      value={k().edge.facts.join('\n')}
                      onInput={(e) => update('edge.facts', e.currentTarget.value.split('\n').map((s) => s.trim()).filter(Boolean))}
                    />
                    <p class="hint">One fact a line.</p>
                  </div>
                </fieldset>
              </div>
            </details>
            <Show when={failure()}>{(m) => <p class="error" role="alert">{m()}</p>}</Show>
            <button type="submit" disabled={starting()}>
              Start the story
            </button>
          </form>
        )}
      </Show>
    </section>
  );
}
