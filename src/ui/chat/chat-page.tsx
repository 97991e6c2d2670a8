import { useNavigate, useParams, useSearchParams } from '@solidjs/router';
import { createEffect, createMemo, createSignal, For, on, onCleanup, onMount, Show } from 'solid-js';
import { closingMarker, describeFictionTime, streamTopic, type RewoundStretch, type StreamMessage, type TranscriptTurn } from '../../engine/for-ui.ts';
import { createAction } from '../action.ts';
import { useClient } from '../context.ts';
import { createLiveQuery } from '../live-query.ts';
import { StoryDrawer } from './story-drawer.tsx';
import { Editable } from './editable.tsx';
import { Avatar } from '../avatar.tsx';
import { errorMessage, replyProblem } from './reply-problem.ts';
import { StoryText } from './story-text.tsx';
import { RewindDialog } from './rewind-dialog.tsx';
import { PromptInspector } from './prompt-inspector.tsx';
import { createStableList } from './stable-list.ts';

/**
 * A chat opens on its latest 20 turns (what fills a screen or two: laying out 50 long ones was a
 * fifth of opening a 10,000-turn chat); earlier turns come 50 at a time as the reader scrolls up.
 */
const FIRST_PAGE = 20;
const PAGE = 50;
/** How far above the screen the earlier turns start loading, so scrolling up rarely waits. */
const LOAD_AHEAD_PX = 800;
const DRAWER_KEY = 'roleplay-engine/drawer';

export function ChatPage() {
  const client = useClient();
  const params = useParams<{ id: string }>();
  const navigate = useNavigate();
  const chatId = () => params.id;
  // The transcript is asked for first: the worker answers one query at a time, in order, and the
  // story is what the reader waits for (the header's state comes a moment after).
  const latest = createLiveQuery(client, { query: 'transcript', chatId }, () => client.engine.transcript(chatId(), { limit: FIRST_PAGE }));
  const header = createLiveQuery(client, { query: 'chatState', chatId }, () => client.engine.chatState(chatId()));
  const settings = createLiveQuery(client, { query: 'settings' }, () => client.engine.settings());
  // Faces beside each speaker: yours, and every bot's (a guest's too).
  const bots = createLiveQuery(client, { query: 'listBots' }, () => client.engine.listBots());
  const me = createLiveQuery(client, { query: 'getYou' }, () => client.engine.getYou());
  const avatarOf = (speaker: string) => (speaker === 'you' ? (me()?.avatar ?? null) : (bots()?.find((b) => b.id === speaker)?.avatar ?? null));
  const analysis = createLiveQuery(client, { query: 'analysisStatus', chatId }, () => client.engine.analysisStatus(chatId()));
  // The drawer stays open or closed as the reader left it; wide screens start with it open.
  // On a phone the drawer takes the whole screen, so a chat always opens on its story there; the
  // remembered choice is a wide screen's.
  const phone = () => window.matchMedia('(max-width: 640px)').matches;
  const [drawerOpen, setDrawerOpen] = createSignal(
    phone() ? false : localStorage.getItem(DRAWER_KEY) === null ? window.innerWidth > 1100 : localStorage.getItem(DRAWER_KEY) === 'open',
  );
  const toggleDrawer = () => {
    setDrawerOpen(!drawerOpen());
    if (!phone()) localStorage.setItem(DRAWER_KEY, drawerOpen() ? 'open' : 'closed');
  };
  const [older, setOlder] = createSignal<TranscriptTurn[]>([]);
  const [olderRewinds, setOlderRewinds] = createSignal<RewoundStretch[]>([]);
  const [rewindFrom, setRewindFrom] = createSignal<number | null>(null);
  const [editing, setEditing] = createSignal<{ turnId: string; text: string } | null>(null);
  const [inspecting, setInspecting] = createSignal<string | null>(null);
  const [rewound, setRewound] = createSignal<{ seq: number; turns: number } | null>(null);
  const [olderCursor, setOlderCursor] = createSignal<number | null | undefined>(undefined);
  const [live, setLive] = createSignal<{ turnId: string; text: string; seq: number } | null>(null);
  const [draft, setDraft] = createSignal('');
  const { run, busy: sending, error, clearError } = createAction();
  let scroller: HTMLDivElement | undefined;
  let input: HTMLTextAreaElement | undefined;
  /**
   * Where the loaded earlier pages end: the first turn of the newest page when they were loaded.
   * The newest page slides forward as the story goes on (it is always the latest turns); what
   * slides out of it joins the earlier pages here, or it would vanish between the two.
   */
  let joinedAt: number | null = null;

  // Older pages go stale when the story is rebuilt (rewind, regenerate) or another tab took over.
  onCleanup(
    client.onChange((notice) => {
      if (notice === 'everything' || (notice.rebuilt && (notice.chats.length === 0 || notice.chats.includes(chatId())))) {
        setOlder([]);
        setOlderRewinds([]);
        setOlderCursor(undefined);
        joinedAt = null;
      }
    }),
  );
  createEffect(on(chatId, () => (setOlder([]), setOlderRewinds([]), setOlderCursor(undefined), (joinedAt = null), setLive(null), setRewindFrom(null), setRewound(null), setInspecting(null), setEditing(null), clearError())));

  const stableTurns = createStableList<TranscriptTurn>((turn) => JSON.stringify(turn));
  const turns = createMemo(() => stableTurns([...older(), ...(latest()?.turns ?? [])]));
  type Item =
    | { kind: 'turn'; turn: TranscriptTurn; next: TranscriptTurn | undefined }
    | { kind: 'rewound'; stretch: RewoundStretch }
    | { kind: 'reset' };
  const stableItems = createStableList<Item>((item) =>
    item.kind === 'turn' ? `turn ${item.turn.turnId} ${JSON.stringify(item.turn)} ${item.next?.seq ?? ''}` : item.kind === 'rewound' ? `rewound ${item.stretch.seq} ${item.stretch.turns}` : 'reset',
  );
  /** The transcript as shown: turns, and a stub where a rewind in force hid some. */
  const items = createMemo(() => {
    const stubs = [...olderRewinds(), ...(latest()?.rewinds ?? [])];
    const list: Item[] = [];
    const all = turns();
    const resetSeq = latest()?.resetSeq ?? null;
    let s = 0;
    let dividerShown = false;
    all.forEach((turn, i) => {
      while (s < stubs.length && stubs[s]!.seq < turn.seq) list.push({ kind: 'rewound', stretch: stubs[s++]! });
      if (resetSeq !== null && !dividerShown && turn.seq > resetSeq && i > 0) {
        list.push({ kind: 'reset' });
        dividerShown = true;
      }
      list.push({ kind: 'turn', turn, next: all[i + 1] });
    });
    while (s < stubs.length) list.push({ kind: 'rewound', stretch: stubs[s++]! });
    if (resetSeq !== null && !dividerShown && all.length > 0 && all.at(-1)!.seq < resetSeq) list.push({ kind: 'reset' });
    return stableItems(list);
  });
  const cursor = () => (olderCursor() === undefined ? (latest()?.olderCursor ?? null) : olderCursor());
  const streaming = createMemo(() => turns().find((t) => t.status === 'streaming'));
  const last = createMemo(() => turns().at(-1));
  /** Above the reset divider: history the narrator no longer reads, so not a reply to steer. */
  const beforeReset = (turn: TranscriptTurn) => (latest()?.resetSeq ?? 0) > turn.seq;
  const ooc = createMemo((): [string, string] => {
    const marker = settings()?.oocMarker ?? '((';
    return [marker, closingMarker(marker)];
  });

  let joining = false;
  const joinSlidOut = async () => {
    if (joining) return;
    joining = true;
    try {
      for (;;) {
        const first = latest()?.turns[0]?.seq;
        const from = joinedAt;
        if (from === null || first === undefined || first <= from) return;
        const loaded = older();
        const slid: TranscriptTurn[] = [];
        const stubs: RewoundStretch[] = [];
        for (let before: number | null = first; before !== null && before > from; ) {
          const page = await client.engine.transcript(chatId(), { beforeSeq: before, limit: PAGE });
          slid.unshift(...page.turns.filter((t) => t.seq >= from));
          stubs.unshift(...page.rewinds.filter((r) => r.seq >= from && r.seq < before!));
          before = page.olderCursor;
        }
        // A rebuild or another chat cleared the earlier pages meanwhile: nothing to join to.
        if (older() !== loaded || joinedAt !== from) continue;
        setOlder([...loaded, ...slid]);
        setOlderRewinds((current) => [...current, ...stubs]);
        joinedAt = first;
      }
    } finally {
      joining = false;
    }
  };
  createEffect(on(latest, () => void joinSlidOut()));

  // One page at a time: a second call while one loads waits for it (the same cursor twice would
  // show its turns twice).
  let loadingOlder: Promise<void> | null = null;
  const loadOlder = (): Promise<void> =>
    (loadingOlder ??= loadOlderPage().finally(() => {
      loadingOlder = null;
      // Still near the top (short turns, a tall screen): the next page too.
      if (olderButtonNear && cursor() !== null) void loadOlder();
    }));
  let olderButtonNear = false;
  let olderButton: HTMLButtonElement | undefined;
  let nearTop: IntersectionObserver | undefined;
  onMount(() => {
    nearTop = new IntersectionObserver(
      (entries) => {
        olderButtonNear = entries.at(-1)!.isIntersecting;
        if (olderButtonNear) void loadOlder();
      },
      { root: scroller, rootMargin: `${LOAD_AHEAD_PX}px 0px 0px 0px` },
    );
    if (olderButton) nearTop.observe(olderButton);
  });
  onCleanup(() => nearTop?.disconnect());

  const loadOlderPage = async () => {
    const before = cursor();
    if (before === null) return;
    if (older().length === 0) joinedAt = latest()?.turns[0]?.seq ?? null;
    const height = scroller?.scrollHeight ?? 0;
    const page = await client.engine.transcript(chatId(), { beforeSeq: before, limit: PAGE });
    setOlder((current) => [...page.turns, ...current]);
    setOlderRewinds((current) => [...page.rewinds, ...current]);
    setOlderCursor(page.olderCursor);
    // Keep the reader's place: what they were looking at stays where it was.
    queueMicrotask(() => scroller && (scroller.scrollTop += scroller.scrollHeight - height));
  };

  // The mirror: the leader streams each reply once; every tab applies its numbered deltas. While the
  // text so far is being read, deltas are held and applied after it: one read, nothing dropped.
  let syncing: { turnId: string; seq: number; text: string }[] | null = null;
  const syncLive = async () => {
    if (syncing) return;
    syncing = [];
    try {
      let state = await client.engine.streamState(chatId());
      for (const held of syncing) {
        if (state && held.turnId === state.turnId && held.seq === state.seq + 1) state = { ...state, text: state.text + held.text, seq: held.seq };
      }
      setLive(state);
    } finally {
      syncing = null;
    }
  };
  createEffect(on(() => streaming()?.turnId, (turnId) => (turnId ? void syncLive() : setLive(null))));
  onCleanup(
    client.onPublish((topic, seq, data) => {
      if (topic !== streamTopic(chatId())) return;
      const message = data as StreamMessage;
      const current = live();
      if (message.type === 'end') return setLive(null);
      if (syncing) return void syncing.push({ turnId: message.turnId, seq, text: message.text });
      if (!current || current.turnId !== message.turnId) return void syncLive();
      if (seq <= current.seq) return;
      if (seq !== current.seq + 1) return void syncLive(); // a delta went missing: read the whole text
      setLive({ turnId: current.turnId, text: current.text + message.text, seq });
    }),
  );

  // Follow the story as it grows, unless the reader scrolled up to read: decided when they scroll,
  // not after new text has landed (a long reply arriving is not the reader scrolling away).
  let stick = true;
  /** Where the last move to the end left the view. */
  let endTop = -1;
  const toEnd = () => {
    if (!stick || !scroller) return;
    scroller.scrollTop = scroller.scrollHeight;
    endTop = scroller.scrollTop;
  };
  const onScroll = () => {
    if (!scroller) return;
    // The scroll event of our own move to the end comes a frame later, maybe after more text or a
    // footer landed below: that is not the reader scrolling away. Only a move up from there is.
    if (stick && scroller.scrollTop >= endTop - 1) return;
    stick = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
  };
  createEffect(
    on([() => latest()?.turns, () => live()?.text.length], () => {
      if (stick) queueMicrotask(toEnd);
    }),
  );
  onMount(() => input?.focus());
  // Stuck to the end, the reader stays there while the page settles: the composer's buttons and the
  // newest turn's footer come with later answers and took their height from the view, so a chat
  // opened with its newest reply hidden below the fold.
  const settle = new ResizeObserver(toEnd);
  createEffect(
    on(items, () => {
      if (!scroller) return;
      settle.disconnect();
      settle.observe(scroller);
      const newest = scroller.lastElementChild;
      if (newest) settle.observe(newest);
    }),
  );
  onCleanup(() => settle.disconnect());

  // A search hit opens the chat at its turn (?turn=<seq>): older pages load until it is there.
  const [query] = useSearchParams<{ turn?: string }>();
  createEffect(
    on([() => query.turn, () => latest() !== undefined], ([turn, loaded]) => {
      const seq = Number(turn);
      if (!turn || !loaded || !Number.isInteger(seq)) return;
      void (async () => {
        const find = () => scroller?.querySelector<HTMLElement>(`.turn[data-seq="${seq}"]`);
        while (!find() && cursor() !== null && cursor()! > seq) await loadOlder();
        queueMicrotask(() => {
          const found = find();
          if (!found) return;
          stick = false;
          found.scrollIntoView({ block: 'center' });
          found.classList.add('found');
          setTimeout(() => found.classList.remove('found'), 4_000);
        });
      })();
    }),
  );

  // Once per chat, when the player starts writing: the first Send then finds the leader ready.
  let preparedFor: string | undefined;
  const prepareToSend = () => {
    if (preparedFor === chatId()) return;
    preparedFor = chatId();
    void client.engine.prepareToSend(chatId()).catch(() => undefined);
  };

  const send = () => {
    const text = draft();
    if (streaming() || sending()) return;
    void run(async () => {
      await client.engine.sendTurn(chatId(), text);
      setDraft('');
    });
  };
  const [drafting, setDrafting] = createSignal(false);
  /** Impersonate: the narrator's draft of your next message lands in the composer, for you to edit or send. */
  const impersonate = () =>
    void run(async () => {
      setDrafting(true);
      try {
        const { text } = await client.engine.impersonate(chatId());
        // Words typed while the draft was on its way are the player's: they are never replaced.
        if (!draft().trim()) setDraft(text);
        input?.focus();
      } finally {
        setDrafting(false);
      }
    });
  /** The composer's hint points here: the drawer opens on the director's note, ready to write. */
  const openDirectorNote = () => {
    if (!drawerOpen()) toggleDrawer();
    queueMicrotask(() => document.querySelector<HTMLButtonElement>('[aria-label="Edit director\'s note"]')?.click());
  };
  /** Deleting is undoable for 30 days: the chat list says so and offers Undo. */
  const deleteChat = () =>
    void run(async () => {
      const title = header()?.title ?? '';
      await client.engine.deleteChat(chatId());
      navigate(`/chats?deleted=${encodeURIComponent(chatId())}&title=${encodeURIComponent(title)}`);
    });
  const regenerate = () => void run(() => client.engine.regenerate(chatId()));
  const continueReply = () => void run(() => client.engine.continueReply(chatId()));
  const versions = createMemo(() => (streaming() ? null : (last()?.versions ?? null)));
  const chooseVersion = (number: number) => {
    const shown = versions();
    if (!shown || number < 1 || number > shown.of || number === shown.number || sending()) return;
    void run(() => client.engine.chooseVersion(chatId(), number));
  };
  // ← / → flip the latest reply's versions while nothing is being typed.
  const onArrow = (event: KeyboardEvent) => {
    if ((event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = event.target as HTMLElement | null;
    const typing = target instanceof HTMLInputElement || target instanceof HTMLSelectElement || Boolean(target?.isContentEditable) ||
      (target instanceof HTMLTextAreaElement && (target !== input || draft() !== ''));
    const shown = versions();
    if (typing || !shown) return;
    event.preventDefault();
    chooseVersion(shown.number + (event.key === 'ArrowLeft' ? -1 : 1));
  };
  window.addEventListener('keydown', onArrow);
  onCleanup(() => window.removeEventListener('keydown', onArrow));
  const stop = () => void client.engine.stopTurn(chatId());
  const restore = (rewindSeq: number) =>
    void run(async () => {
      await client.engine.undoRewind(chatId(), rewindSeq);
      if (rewound()?.seq === rewindSeq) setRewound(null);
    });
  /** The newest of your messages still shown: the one "Save and regenerate" applies to. */
  const latestOfYours = createMemo(() => [...turns()].reverse().find((t) => t.role === 'user' && !t.hidden));
  const saveEdit = (regenerateAfter: boolean) => {
    const edit = editing();
    if (!edit) return;
    void run(async () => {
      await client.engine.editTurn(chatId(), edit.turnId, edit.text);
      setEditing(null);
      if (regenerateAfter) await client.engine.regenerate(chatId());
    });
  };
  const branchFrom = (seq: number) =>
    void run(async () => {
      const branch = await client.engine.branchChat(chatId(), seq);
      navigate(`/chats/${branch}`);
    });
  const setHidden = (turnId: string, hidden: boolean) => void run(() => client.engine.setTurnHidden(chatId(), turnId, hidden));
  /** What saving this edit will do to the story, said in the editor before the player saves. */
  const editHint = (turn: TranscriptTurn) =>
    turn.role === 'assistant' && turn === last()
      ? "Saving re-reads this reply: its effect on feelings, memories and the clock is worked out again."
      : turn === latestOfYours()
        ? 'Save keeps the reply as it is; Save and regenerate writes a new reply to your new words.'
        : 'The narrator sees the new words from now on. What this turn already changed in the story stays; use Rewind to here for that.';

  // The toast after a rewind offers Undo for a while; the stub in the story offers Restore for good.
  let toastTimer: ReturnType<typeof setTimeout> | undefined;
  const showRewound = (rewind: { seq: number; turns: number }) => {
    setRewindFrom(null);
    setRewound(rewind);
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => setRewound(null), 12_000);
  };
  onCleanup(() => clearTimeout(toastTimer));

  // A continued reply streams on from its earlier text, which the row already holds.
  const textOf = (turn: TranscriptTurn) => (turn.status === 'streaming' && live()?.turnId === turn.turnId ? live()!.text : turn.text);

  /** One turn of the story, with its controls: versions on the latest reply, Rewind to here on all but the last. */
  const TurnView = (props: { turn: TranscriptTurn; next: TranscriptTurn | undefined }) => (
    <article
      class={`turn ${props.turn.role}${beforeReset(props.turn) ? ' before-reset' : ''}`}
      data-status={props.turn.status}
      data-turn-id={props.turn.turnId}
      data-seq={props.turn.seq}
    >
      <div class="speaker">
        <Avatar client={client} name={props.turn.speakerName} hash={avatarOf(props.turn.speaker)} />
        <strong>{props.turn.speakerName}</strong>
        <Show when={props.turn.edited}>
          <span class="edited-mark">edited</span>
        </Show>
        <Show when={props.turn.status === 'streaming'}>
          <span class="typing" aria-label="writing">
            <i />
            <i />
            <i />
          </span>
        </Show>
      </div>
      <Show
        when={editing()?.turnId === props.turn.turnId}
        fallback={
          <div class="story-text">
            <StoryText text={textOf(props.turn)} ooc={ooc()} />
          </div>
        }
      >
        <div class="turn-editor">
          <textarea
            aria-label="Edit message"
            rows={Math.min(12, Math.max(3, Math.ceil((editing()?.text.length ?? 0) / 70)))}
            value={editing()?.text ?? ''}
            ref={(el) => queueMicrotask(() => el.focus())}
            onInput={(event) => setEditing({ turnId: props.turn.turnId, text: event.currentTarget.value })}
            onKeyDown={(event) => {
              if (event.key === 'Escape') {
                event.preventDefault();
                setEditing(null);
              } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
                event.preventDefault();
                saveEdit(false);
              }
            }}
          />
          <p class="muted small-text">{editHint(props.turn)}</p>
          <div class="editor-actions">
            <button type="button" onClick={() => setEditing(null)}>
              Cancel
            </button>
            <Show when={props.turn === latestOfYours() && last()?.role === 'assistant'}>
              <button type="button" onClick={() => saveEdit(true)} disabled={sending()}>
                Save and regenerate
              </button>
            </Show>
            <button type="submit" onClick={() => saveEdit(false)} disabled={sending()}>
              Save
            </button>
          </div>
        </div>
      </Show>
      <div class="turn-footer">
        <Show when={props.turn === last() ? versions() : null}>
          {(shown) => (
            <nav class="versions" aria-label="Versions of this reply">
              <button type="button" class="small quiet" aria-label="Previous version" title="Previous version (←)" disabled={shown().number <= 1 || sending()} onClick={() => chooseVersion(shown().number - 1)}>
                ‹
              </button>
              <span data-testid="version" aria-label={`Version ${shown().number} of ${shown().of}`}>
                {shown().number}/{shown().of}
              </span>
              <button type="button" class="small quiet" aria-label="Next version" title="Next version (→)" disabled={shown().number >= shown().of || sending()} onClick={() => chooseVersion(shown().number + 1)}>
                ›
              </button>
              <Show when={shown().otherDevice}>
                <span class="muted other-device" data-testid="version-elsewhere" title="Written on another device you sync with; the other answers are the versions beside it">
                  from another device
                </span>
              </Show>
            </nav>
          )}
        </Show>
        <Show when={props.turn.role === 'assistant' && props.turn.completionTokens !== null}>
          <p class="usage" title="Tokens: prompt → reply">
            {props.turn.promptTokens} → {props.turn.completionTokens} tokens
          </p>
        </Show>
        <Show when={props.turn.status !== 'streaming' && editing()?.turnId !== props.turn.turnId}>
          <button type="button" class="small quiet turn-action" onClick={() => setEditing({ turnId: props.turn.turnId, text: props.turn.text })}>
            Edit
          </button>
          <button type="button" class="small quiet turn-action" onClick={() => setHidden(props.turn.turnId, true)} disabled={sending()}>
            Delete
          </button>
        </Show>
        <Show when={props.turn.role === 'assistant' && props.turn.status !== 'streaming'}>
          <button type="button" class="small quiet turn-action" onClick={() => setInspecting(props.turn.turnId)}>
            Why this reply?
          </button>
        </Show>
        <Show when={props.next && !streaming()}>
          <button type="button" class="small quiet turn-action" onClick={() => setRewindFrom(props.next!.seq)}>
            Rewind to here
          </button>
        </Show>
        <Show when={props.turn.status !== 'streaming' && !streaming()}>
          <button type="button" class="small quiet turn-action" onClick={() => branchFrom(props.turn.seq)} disabled={sending()} title="A new chat with the story up to here">
            Branch from here
          </button>
        </Show>
      </div>
    </article>
  );

  return (
    <section class="chat" aria-labelledby="chat-title">
      <header class="chat-header">
        <div>
          <Show when={header()} fallback={<h1 id="chat-title">Chat</h1>}>
            {(h) => (
              <div class="chat-title-line">
                <Editable label="chat title" value={h().title} save={(title: string) => client.engine.editState(chatId(), { type: 'chat' }, 'title', title)}>
                  <h1 id="chat-title">{h().title}</h1>
                </Editable>
              </div>
            )}
          </Show>
          <p class="muted">
            <Show when={header()}>{(h) => <span data-testid="fiction-time">{describeFictionTime(h().fictionTime)}</span>}</Show>
            <Show when={header()?.place}>{(place) => <span> · {place().name}</span>}</Show>
            <Show when={header()?.weather}>{(weather) => <span> · {weather()}</span>}</Show>
            <Show when={(analysis()?.pending ?? 0) > 0}>
              <span class="updating" role="status" data-testid="updating-memories">
                {' '}
                · updating memories…
              </span>
            </Show>
          </p>
        </div>
        <div class="row header-actions">
          <button type="button" class="small quiet" onClick={deleteChat} disabled={sending() || Boolean(streaming()) || Boolean(header()?.deleted)}>
            Delete chat
          </button>
          <button type="button" class="small quiet drawer-toggle" aria-expanded={drawerOpen()} aria-controls="story-drawer" onClick={toggleDrawer}>
            {drawerOpen() ? 'Hide story state' : 'Story state'}
          </button>
        </div>
      </header>
      <Show when={header()?.deleted}>
        {(what) => (
          <p class="banner warn" role="status" data-banner="chat-deleted">
            <span class="banner-text">
              {what() === 'chat' ? 'This chat is in Recently deleted.' : 'This chat’s bot is in Recently deleted, and the chat with it.'}{' '}
              <button type="button" class="small" onClick={() => void run(() => (what() === 'chat' ? client.engine.restoreChat(chatId()) : client.engine.restoreBot(header()!.botId)))}>
                {what() === 'chat' ? 'Restore chat' : 'Restore bot'}
              </button>
            </span>
          </p>
        )}
      </Show>

      <div class="chat-body" data-drawer={drawerOpen() ? 'open' : 'closed'}>
        <div class="chat-main">
          <div class="transcript" ref={scroller} onScroll={onScroll} role="log" aria-label="Story" aria-live="polite">
            <Show when={cursor() !== null && latest()}>
              <button
                type="button"
                class="load-older"
                ref={(el) => {
                  olderButton = el;
                  nearTop?.observe(el);
                }}
                onClick={() => void loadOlder()}
              >
                Load earlier turns
              </button>
            </Show>
            <For each={items()}>
              {(item) =>
                item.kind === 'reset' ? (
                  <p class="reset-divider" role="separator" data-testid="reset-divider">
                    Before the reset · {header()?.names[header()!.botId] ?? 'The bot'} starts over from here; the narrator no longer reads what is above
                  </p>
                ) : item.kind === 'rewound' ? (
                  <div class="rewound-stub" role="note" data-testid="rewound-stub">
                    <span>{item.stretch.turns === 1 ? '1 turn' : `${item.stretch.turns} turns`} rewound</span>
                    <span aria-hidden="true"> — </span>
                    <button type="button" class="small quiet" onClick={() => restore(item.stretch.seq)} disabled={sending() || Boolean(streaming())}>
                      Restore
                    </button>
                  </div>
                ) : (
                  <Show
                    when={!item.turn.hidden}
                    fallback={
                      <div class="rewound-stub" role="note" data-testid="deleted-stub">
                        <span>{item.turn.speakerName}'s message deleted</span>
                        <span aria-hidden="true"> — </span>
                        <button type="button" class="small quiet" onClick={() => setHidden(item.turn.turnId, false)} disabled={sending()}>
                          Undo delete
                        </button>
                      </div>
                    }
                  >
                    <TurnView turn={item.turn} next={item.next} />
                  </Show>
                )
              }
            </For>
            <Show when={turns().length === 0 && latest()}>
              <p class="muted">The story has not begun. Write the first line below.</p>
            </Show>
          </div>

          <Show when={last() && !streaming() ? replyProblem(last()!) : null}>
            {(problem) => (
              <div class="reply-problem" role="status" data-banner="reply-problem">
                <span>{problem().message}</span>
                <button type="button" onClick={regenerate} disabled={sending()}>
                  {problem().action}
                </button>
              </div>
            )}
          </Show>
          <Show when={error()}>
            {(message) => (
              <p class="error" role="alert">
                {errorMessage(undefined, message())}
              </p>
            )}
          </Show>

          <Show when={rewound()}>
            {(done) => (
              <div class="toast" role="status" data-testid="rewind-toast">
                <span>Rewound {done().turns === 1 ? '1 turn' : `${done().turns} turns`}.</span>
                <button type="button" class="small" onClick={() => restore(done().seq)} disabled={sending()}>
                  Undo
                </button>
              </div>
            )}
          </Show>
          <Show when={inspecting()}>
            {(turnId) => <PromptInspector client={client} chatId={chatId()} turnId={turnId()} onClose={() => setInspecting(null)} />}
          </Show>
          <Show when={rewindFrom()}>
            {(fromSeq) => <RewindDialog client={client} chatId={chatId()} fromSeq={fromSeq()} onClose={() => setRewindFrom(null)} onRewound={showRewound} />}
          </Show>

          <form
            class="composer"
            onSubmit={(event) => {
              event.preventDefault();
              send();
            }}
          >
            <textarea
              ref={input}
              aria-label="Message"
              placeholder={`"Say something," *do something*  ${ooc()[0]}out of character${ooc()[1]}`}
              rows={2}
              aria-describedby="composer-hint"
              value={draft()}
              onInput={(event) => {
                setDraft(event.currentTarget.value);
                prepareToSend();
              }}
              onKeyDown={(event) => {
                if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
                  event.preventDefault();
                  send();
                }
              }}
            />
            <div class="composer-actions">
              <Show
                when={streaming()}
                fallback={
                  <>
                    <button
                      type="button"
                      class="quiet"
                      onClick={impersonate}
                      disabled={sending() || Boolean(draft().trim())}
                      title={draft().trim() ? 'Clear your message to have one drafted' : 'The narrator drafts your next message in your voice; nothing is sent'}
                    >
                      {drafting() ? 'Drafting…' : 'Impersonate'}
                    </button>
                    {/* Not on the opening (the author's kickoff) nor on history before a reset. */}
                    <Show when={last()?.role === 'assistant' && last()!.model !== 'kickoff' && !beforeReset(last()!)}>
                      <Show when={last()?.text.trim()}>
                        <button type="button" onClick={continueReply} disabled={sending()} title="The narrator goes on from the last word">
                          Continue
                        </button>
                      </Show>
                      {/* A reply with a problem offers its own Regenerate or Retry, in its banner. */}
                      <Show when={!replyProblem(last()!)}>
                        <button type="button" onClick={regenerate} disabled={sending()}>
                          Regenerate
                        </button>
                      </Show>
                    </Show>
                    <button
                      type="submit"
                      disabled={sending() || Boolean(streaming())}
                      title={draft().trim() ? undefined : 'Send nothing: the narrator carries the scene on'}
                    >
                      {draft().trim() ? 'Send' : 'Let them go on'}
                    </button>
                  </>
                }
              >
                <button type="button" class="stop" onClick={stop}>
                  Stop
                </button>
                <button type="submit" disabled>
                  Send
                </button>
              </Show>
            </div>
            <p id="composer-hint" class="composer-hint small-text muted">
              {ooc()[0]}Asides{ooc()[1]} stay between you and the app: the narrator never sees them. To steer the narrator, write a{' '}
              <button type="button" class="link" onClick={openDirectorNote}>
                director's note
              </button>
              .
            </p>
          </form>
        </div>
        <Show when={drawerOpen() && header()}>
          {(drawer) => (
            <div id="story-drawer" class="drawer-slot">
              <StoryDrawer client={client} chatId={chatId()} drawer={drawer()} />
            </div>
          )}
        </Show>
      </div>
    </section>
  );
}
