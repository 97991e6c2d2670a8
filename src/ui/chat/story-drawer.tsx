import { A } from '@solidjs/router';
import { createSignal, For, Show } from 'solid-js';
import { describeFictionTime, editMarkKey, type ChatState, type EditTarget, type Memory } from '../../engine/for-ui.ts';
import { createAction } from '../action.ts';
import type { AppClient } from '../engine-client.ts';
import { StoryText } from './story-text.tsx';
import { Editable } from './editable.tsx';
import { createLiveQuery } from '../live-query.ts';
import { Avatar } from '../avatar.tsx';
import { SamplerFields, samplerFromForm } from '../sampler-fields.tsx';
import { ErrorNote } from '../error-note.tsx';

const CLOCK_STEPS = [
  { label: '+10 min', minutes: 10 },
  { label: '+1 hour', minutes: 60 },
  { label: '+8 hours', minutes: 480 },
];

const SIGNIFICANCE = ['trivial', 'ordinary', 'notable', 'pivotal'];
/** Memories hold in-character text only; nothing in them is an aside. */
const OOC: [string, string] = ['\u0000', '\u0000'];

/**
 * The chat's living state, as the engine holds it: clock, scene and place, who is doing what, how
 * each feels about the other and what they know, and the host's memories with their pins.
 */
export function StoryDrawer(props: { client: AppClient; chatId: string; drawer: ChatState }) {
  const { run: act, busy, error } = createAction();
  const [confirmEnd, setConfirmEnd] = createSignal(false);
  const name = (ref: string) => props.drawer.names[ref] ?? 'Someone';
  const togglePin = (memory: Memory) => void act(() => props.client.engine.pinMemory(props.chatId, memory.id, !memory.pinned));
  /** One hand edit; the engine's refusal (out of range, empty) comes back to the field that sent it. */
  const edit = (target: EditTarget, field: string) => (value: unknown) => props.client.engine.editState(props.chatId, target, field, value);
  const edited = (target: EditTarget, field: string) => props.drawer.edited.includes(editMarkKey(target, field));
  const [newFact, setNewFact] = createSignal<Record<string, string>>({});
  const bots = createLiveQuery(props.client, { query: 'listBots' }, () => props.client.engine.listBots());
  const settings = createLiveQuery(props.client, { query: 'settings' }, () => props.client.engine.settings());
  const me = createLiveQuery(props.client, { query: 'getYou' }, () => props.client.engine.getYou());
  /** Bots who could join: not the host, not already in the chat (someone away is brought back from their row). */
  const invitable = () => (bots() ?? []).filter((b) => b.id !== props.drawer.botId && !props.drawer.activities.some((a) => a.entity === b.id));
  const [guest, setGuest] = createSignal('');
  const lorebooks = createLiveQuery(props.client, { query: 'chatLorebooks' }, () => props.client.engine.chatLorebooks(props.chatId));

  return (
    <aside class="drawer" aria-label="Story state" data-testid="story-drawer">
      <ErrorNote message={error()} />

      <Show when={props.drawer.lastEdit}>
        {(field) => (
          <p class="button-row small-text">
            <button type="button" class="small" disabled={busy()} onClick={() => void act(() => props.client.engine.undoStateEdit(props.chatId))} title={`Takes back your change to ${field()}`}>
              Undo last edit
            </button>
            <span class="muted">({field()})</span>
          </p>
        )}
      </Show>

      <section aria-labelledby="drawer-director">
        <h2 id="drawer-director">Director's note</h2>
        <p class="small-text muted">The narrator follows it in every reply and never says it aloud.</p>
        <p class="small-text" data-testid="director-note">
          <Editable label="director's note" kind="long" value={props.drawer.directorNote} save={edit({ type: 'chat_state' }, 'directorNote')}>
            {props.drawer.directorNote || <span class="muted">None. Try “Keep replies short” or “She hides her fear”.</span>}
          </Editable>
        </p>
      </section>

      <details class="drawer-sampling">
        <summary>Sampling for this chat{props.drawer.sampler ? ' (its own)' : ''}</summary>
        <form
          class="stack"
          aria-label="Sampling for this chat"
          onSubmit={(event) => {
            event.preventDefault();
            const knobs = samplerFromForm(new FormData(event.currentTarget));
            void act(() => props.client.engine.setChatSampler(props.chatId, knobs));
          }}
        >
          <p class="small-text muted">Empty fields follow Settings. A higher temperature is bolder, a lower one steadier.</p>
          <SamplerFields value={props.drawer.sampler ?? {}} placeholder={settings()?.sampler} />
          <div class="button-row">
            <button type="submit" class="small" disabled={busy()}>
              Save sampling
            </button>
            <Show when={props.drawer.sampler}>
              <button type="button" class="small quiet" disabled={busy()} onClick={() => void act(() => props.client.engine.setChatSampler(props.chatId, {}))}>
                Follow Settings
              </button>
            </Show>
          </div>
        </form>
      </details>

      <section aria-labelledby="drawer-clock">
        <h2 id="drawer-clock">When and where</h2>
        <p data-testid="drawer-time">{describeFictionTime(props.drawer.fictionTime)}</p>
        <p class="small-text">
          <Editable label="weather" value={props.drawer.weather} edited={edited({ type: 'chat_state' }, 'weather')} save={edit({ type: 'chat_state' }, 'weather')}>
            <span class="muted">Weather: </span>
            {props.drawer.weather || '—'}
          </Editable>
        </p>
        <p class="small-text">
          <Editable label="where the story is heading" kind="long" value={props.drawer.narrativeAnchor} edited={edited({ type: 'chat_state' }, 'narrativeAnchor')} save={edit({ type: 'chat_state' }, 'narrativeAnchor')}>
            <span class="muted">Heading: </span>
            {props.drawer.narrativeAnchor || '—'}
          </Editable>
        </p>
        <div class="button-row">
          <For each={CLOCK_STEPS}>
            {(step) => (
              <button type="button" class="small" disabled={busy()} onClick={() => void act(() => props.client.engine.advanceClock(props.chatId, step.minutes))}>
                {step.label}
              </button>
            )}
          </For>
        </div>
        <p data-testid="drawer-place">
          <Show when={props.drawer.place} fallback={<span class="muted">No place set.</span>}>
            {(place) => (
              <>
                <Editable label="place name" value={place().name} edited={edited({ type: 'container', id: place().id }, 'name')} save={edit({ type: 'container', id: place().id }, 'name')}>
                  <strong>{place().name}</strong>
                </Editable>{' '}
                <Editable label="kind of place" value={place().type} edited={edited({ type: 'container', id: place().id }, 'type')} save={edit({ type: 'container', id: place().id }, 'type')}>
                  <span class="muted">({place().type})</span>
                </Editable>
              </>
            )}
          </Show>
        </p>
        <Show when={props.drawer.scene}>
          {(scene) => (
            <p class="muted small-text">
              Scene since {describeFictionTime(scene().openedFictionTime)}, with {scene().participants.map(name).join(' and ')}.
            </p>
          )}
        </Show>
        <Show
          when={confirmEnd()}
          fallback={
            <button type="button" class="small" disabled={busy() || !props.drawer.scene} onClick={() => setConfirmEnd(true)}>
              End scene
            </button>
          }
        >
          <div class="button-row">
            <span>End this scene and summarise it?</span>
            <button type="button" class="small" onClick={() => void act(() => props.client.engine.closeScene(props.chatId)).then(() => setConfirmEnd(false))}>
              End it
            </button>
            <button type="button" class="small quiet" onClick={() => setConfirmEnd(false)}>
              Cancel
            </button>
          </div>
        </Show>
      </section>

      <Show when={props.drawer.activities.length > 0}>
        <section aria-labelledby="drawer-people">
          <h2 id="drawer-people">Who is doing what</h2>
          <ul class="plain">
            <For each={props.drawer.activities}>
              {(a) => (
                <li>
                  <Avatar client={props.client} name={name(a.entity)} hash={a.entity === 'you' ? (me()?.avatar ?? null) : (bots()?.find((b) => b.id === a.entity)?.avatar ?? null)} />{' '}
                  <strong>{name(a.entity)}</strong>
                  <Show when={a.status !== 'present'}>
                    <span class="muted"> ({a.status})</span>
                  </Show>
                  {/* A guest comes and goes; the host and you stay. */}
                  <Show when={a.entity !== 'you' && a.entity !== props.drawer.botId}>
                    <button
                      type="button"
                      class="small quiet guest-toggle"
                      disabled={busy()}
                      onClick={() => void act(() => props.client.engine.setGuest(props.chatId, a.entity, a.status !== 'present'))}
                    >
                      {a.status === 'present' ? `${name(a.entity)} leaves` : `Bring ${name(a.entity)} back`}
                    </button>
                  </Show>
                  <div class="activity-fields small-text">
                    <Editable label={`what ${name(a.entity)} is doing`} value={a.action.verb} edited={edited({ type: 'activity', entity: a.entity }, 'doing')} save={edit({ type: 'activity', entity: a.entity }, 'doing')}>
                      <span class="muted">doing </span>
                      {a.action.verb || '—'}
                    </Editable>
                    <Editable label={`${name(a.entity)}'s posture`} value={a.posture} edited={edited({ type: 'activity', entity: a.entity }, 'posture')} save={edit({ type: 'activity', entity: a.entity }, 'posture')}>
                      <span class="muted">posture </span>
                      {a.posture || '—'}
                    </Editable>
                    <Editable label={`${name(a.entity)}'s attention`} value={a.attention} edited={edited({ type: 'activity', entity: a.entity }, 'attention')} save={edit({ type: 'activity', entity: a.entity }, 'attention')}>
                      <span class="muted">attending to </span>
                      {a.attention || '—'}
                    </Editable>
                  </div>
                </li>
              )}
            </For>
          </ul>
        </section>
      </Show>

      <Show when={invitable().length > 0}>
        <section aria-labelledby="drawer-invite">
          <h2 id="drawer-invite">Invite someone</h2>
          <p class="small-text muted">A guest joins this scene: the narrator voices them, and they remember only what they are here for.</p>
          <div class="button-row">
            <select aria-label="Bot to invite" value={guest()} onChange={(e) => setGuest(e.currentTarget.value)}>
              <For each={invitable()}>{(bot) => <option value={bot.id}>{bot.name}</option>}</For>
            </select>
            <button
              type="button"
              class="small"
              disabled={busy()}
              onClick={() => void act(() => props.client.engine.setGuest(props.chatId, invitable().some((b) => b.id === guest()) ? guest() : invitable()[0]!.id, true))}
            >
              Invite
            </button>
          </div>
        </section>
      </Show>

      <section aria-labelledby="drawer-lore">
        <h2 id="drawer-lore">Lorebooks</h2>
        <Show
          when={(lorebooks() ?? []).length > 0}
          fallback={
            <p class="small-text muted">
              None of their own yet: import world info on the <A href="/lore">Lore page</A>. {name(props.drawer.botId)}’s card lorebook, if any, is always on.
            </p>
          }
        >
          <p class="small-text muted">Entries of an attached lorebook are told to the narrator when the story mentions their keys.</p>
          <ul class="plain">
            <For each={lorebooks()}>
              {(book) => (
                <li>
                  <label class="check-row">
                    <input
                      type="checkbox"
                      checked={book.attached}
                      disabled={busy()}
                      onChange={(e) => void act(() => props.client.engine.attachLorebook(props.chatId, book.lorebookId, e.currentTarget.checked))}
                    />
                    {book.name}
                  </label>
                </li>
              )}
            </For>
          </ul>
        </Show>
      </section>

      <section aria-labelledby="drawer-feelings">
        <h2 id="drawer-feelings">Feelings</h2>
        <Show when={props.drawer.edges.length > 0} fallback={<p class="muted">Nothing felt yet.</p>}>
          <ul class="plain edges">
            <For each={props.drawer.edges}>
              {(edge) => (
                <li data-testid="edge" data-source={edge.source} data-target={edge.target}>
                  <p class="edge-title">
                    {name(edge.source)} → {name(edge.target)}
                  </p>
                  <For each={(['affinity', 'trust'] as const)}>
                    {(field) => {
                      const label = field === 'affinity' ? 'Affinity' : 'Trust';
                      const target: EditTarget = { type: 'edge', source: edge.source, target: edge.target };
                      return (
                        <div class="meter-row">
                          <span>{label}</span>
                          <meter min={0} max={100} value={edge[field]} aria-label={`${label} of ${name(edge.source)} toward ${name(edge.target)}`} />
                          <Editable
                            label={`${label.toLowerCase()} of ${name(edge.source)} toward ${name(edge.target)}`}
                            kind="score"
                            value={Math.round(edge[field])}
                            edited={edited(target, field)}
                            save={edit(target, field)}
                          >
                            <span data-testid={field}>{Math.round(edge[field])}</span>
                          </Editable>
                        </div>
                      );
                    }}
                  </For>
                  <p class="small-text">
                    <Editable
                      label={`how ${name(edge.source)} sees ${name(edge.target)}`}
                      kind="long"
                      value={edge.summary}
                      edited={edited({ type: 'edge', source: edge.source, target: edge.target }, 'summary')}
                      save={edit({ type: 'edge', source: edge.source, target: edge.target }, 'summary')}
                    >
                      {edge.summary || <span class="muted">No summary yet.</span>}
                    </Editable>
                  </p>
                  <ul class="knowledge small-text" aria-label={`What ${name(edge.source)} knows about ${name(edge.target)}`}>
                    <For each={edge.knowledge}>
                      {(fact) => (
                        <li>
                          {fact}
                          <button
                            type="button"
                            class="small quiet"
                            aria-label={`Forget: ${fact}`}
                            disabled={busy()}
                            onClick={() => void act(() => edit({ type: 'edge', source: edge.source, target: edge.target }, 'knowledge')(edge.knowledge.filter((f) => f !== fact)))}
                          >
                            ✕
                          </button>
                        </li>
                      )}
                    </For>
                  </ul>
                  <Show when={edited({ type: 'edge', source: edge.source, target: edge.target }, 'knowledge')}>
                    <span class="edited-mark">facts edited by you</span>
                  </Show>
                  <form
                    class="add-fact"
                    onSubmit={(event) => {
                      event.preventDefault();
                      const key = `${edge.source}:${edge.target}`;
                      const fact = (newFact()[key] ?? '').trim();
                      if (!fact) return;
                      void act(async () => {
                        await edit({ type: 'edge', source: edge.source, target: edge.target }, 'knowledge')([...edge.knowledge, fact]);
                        setNewFact((all) => ({ ...all, [key]: '' }));
                      });
                    }}
                  >
                    <input
                      aria-label={`A new fact ${name(edge.source)} knows about ${name(edge.target)}`}
                      placeholder="Add a fact…"
                      value={newFact()[`${edge.source}:${edge.target}`] ?? ''}
                      onInput={(e) => setNewFact((all) => ({ ...all, [`${edge.source}:${edge.target}`]: e.currentTarget.value }))}
                    />
                    <button type="submit" class="small" disabled={busy()}>
                      Add
                    </button>
                  </form>
                </li>
              )}
            </For>
          </ul>
        </Show>
      </section>

      <section aria-labelledby="drawer-memories">
        <h2 id="drawer-memories">
          {name(props.drawer.botId)}'s memories{' '}
          <span class="muted small-text" data-testid="pin-count" title="Pinned memories always reach the story">
            pinned {props.drawer.pinned.count}/{props.drawer.pinned.cap}
          </span>
        </h2>
        <Show when={props.drawer.memories.length > 0} fallback={<p class="muted">No memories yet. They form after each reply.</p>}>
          <ul class="plain memories">
            <For each={props.drawer.memories}>
              {(memory) => (
                <li data-testid="memory" data-pinned={memory.pinned ? 'true' : 'false'}>
                  <div class="memory-meta small-text">
                    <span>{describeFictionTime(memory.fictionTime)}</span>
                    <Editable
                      label="significance"
                      kind="significance"
                      value={memory.significance}
                      edited={edited({ type: 'memory', id: memory.id }, 'significance')}
                      save={edit({ type: 'memory', id: memory.id }, 'significance')}
                    >
                      <span class="significance" title={`Significance: ${SIGNIFICANCE[memory.significance]}`} aria-label={`Significance: ${SIGNIFICANCE[memory.significance]}`}>
                        {'●'.repeat(memory.significance)}
                        {'○'.repeat(3 - memory.significance)}
                      </span>
                    </Editable>
                    <button
                      type="button"
                      class="small quiet"
                      aria-pressed={memory.pinned}
                      aria-label={`Pin “${memory.summary.length > 60 ? `${memory.summary.slice(0, 59)}…` : memory.summary}”`}
                      disabled={busy()}
                      onClick={() => togglePin(memory)}
                    >
                      {memory.pinned ? (memory.autoPinned ? 'Pinned (auto)' : 'Pinned') : 'Pin'}
                    </button>
                  </div>
                  <div class="memory-text">
                    <Editable label="memory" kind="long" value={memory.summary} edited={edited({ type: 'memory', id: memory.id }, 'summary')} save={edit({ type: 'memory', id: memory.id }, 'summary')}>
                      <StoryText text={memory.summary} ooc={OOC} />
                    </Editable>
                  </div>
                  <Show when={memory.keywords}>
                    <p class="memory-keywords muted small-text" data-testid="memory-keywords" title="Words this memory is also found by">
                      Found by: {memory.keywords}
                    </p>
                  </Show>
                </li>
              )}
            </For>
          </ul>
        </Show>
      </section>

      <section aria-labelledby="drawer-export">
        <h2 id="drawer-export">Take this chat elsewhere</h2>
        <div class="button-row">
          <button type="button" class="small" disabled={busy()} onClick={() => void act(() => saveChat(props.client, props.chatId, props.drawer.title, 'sillytavern'))}>
            Export for SillyTavern
          </button>
          <button type="button" class="small quiet" disabled={busy()} onClick={() => void act(() => saveChat(props.client, props.chatId, props.drawer.title, 'markdown'))}>
            Export as Markdown
          </button>
        </div>
      </section>
    </aside>
  );
}

/** The chat as a file the browser saves: SillyTavern's .jsonl, or Markdown to read anywhere. */
async function saveChat(client: AppClient, chatId: string, title: string, as: 'sillytavern' | 'markdown'): Promise<void> {
  const text = await client.engine.exportChat(chatId, as);
  const name = (title.replace(/[\\/:*?"<>|]+/g, '_').trim() || 'chat') + (as === 'markdown' ? '.md' : '.jsonl');
  const url = URL.createObjectURL(new Blob([text], { type: as === 'markdown' ? 'text/markdown' : 'application/jsonl' }));
  Object.assign(document.createElement('a'), { href: url, download: name }).click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
