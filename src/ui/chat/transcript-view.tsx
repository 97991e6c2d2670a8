import { useSearchParams } from '@solidjs/router';
import { createEffect, createMemo, For, Match, on, onCleanup, onMount, Show, Switch } from 'solid-js';
import type { ChatScope } from './chat-scope.ts';
import type { TranscriptItem } from './transcript-pages.ts';
import { TurnView } from './turn-view.tsx';
import { t } from '../i18n/index.ts';

/** How far above the screen the earlier turns start loading, so scrolling up rarely waits. */
const LOAD_AHEAD_PX = 800;

/**
 * The story as it scrolls: turns, rewound and deleted stubs, the reset divider. It follows the
 * story as it grows unless the reader scrolled up, loads earlier turns as they near the top, and
 * opens at a search hit's turn.
 */
export function TranscriptView(props: { chat: ChatScope; ref: (el: HTMLDivElement) => void }) {
  const chat = props.chat;
  const pages = chat.pages;
  let scroller: HTMLDivElement | undefined;
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
  createEffect(on([() => pages.latest()?.turns, () => chat.live()?.text.length], () => stick && queueMicrotask(toEnd)));
  // Stuck to the end, the reader stays there while the page settles: the composer's buttons and the
  // newest turn's footer come with later answers and took their height from the view, so a chat
  // opened with its newest reply hidden below the fold.
  const settle = new ResizeObserver(toEnd);
  createEffect(
    on(pages.items, () => {
      if (!scroller) return;
      settle.disconnect();
      settle.observe(scroller);
      const newest = scroller.lastElementChild;
      if (newest) settle.observe(newest);
    }),
  );
  onCleanup(() => settle.disconnect());

  // Earlier turns load as the button above them nears the screen; still near (short turns, a tall
  // screen), the next page too.
  let olderButtonNear = false;
  const loadOlder = (): Promise<void> =>
    pages.loadOlder().then(() => {
      if (olderButtonNear && pages.cursor() !== null) void loadOlder();
    });
  let nearTop: IntersectionObserver | undefined;
  let olderButton: HTMLButtonElement | undefined;
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

  // A search hit opens the chat at its turn (?turn=<seq>): older pages load until it is there.
  const [query] = useSearchParams<{ turn?: string }>();
  createEffect(
    on([() => query.turn, () => pages.latest() !== undefined], ([turn, loaded]) => {
      const seq = Number(turn);
      if (!turn || !loaded || !Number.isInteger(seq)) return;
      void (async () => {
        const find = () => scroller?.querySelector<HTMLElement>(`.turn[data-seq="${seq}"]`);
        while (!find() && pages.cursor() !== null && pages.cursor()! > seq) await pages.loadOlder();
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

  const busy = () => chat.sending() || Boolean(pages.streaming());
  // Rows are keyed by what they show (a turn by its id), not by the object: a turn that changes
  // (its reply finishing, its analysis landing) updates in place, so an open menu, a selection or
  // a focused control in it stays.
  const keyOf = (item: TranscriptItem) => (item.kind === 'turn' ? `turn:${item.turn.turnId}` : item.kind === 'rewound' ? `rewound:${item.stretch.seq}` : 'reset');
  const itemsByKey = createMemo(() => new Map(pages.items().map((item) => [keyOf(item), item])));
  const keys = createMemo(() => pages.items().map(keyOf), [], { equals: (a, b) => a.length === b.length && a.every((key, i) => key === b[i]) });
  return (
    <div
      class="transcript"
      ref={(el) => {
        scroller = el;
        props.ref(el);
      }}
      onScroll={onScroll}
      role="log"
      aria-label={t('story.log')}
      tabindex="-1"
      aria-live="polite"
    >
      <Show when={pages.cursor() !== null && pages.latest()}>
        <button
          type="button"
          class="load-older"
          ref={(el) => {
            olderButton = el;
            nearTop?.observe(el);
          }}
          onClick={() => void loadOlder()}
        >
          {t('story.loadEarlier')}
        </button>
      </Show>
      <For each={keys()}>
        {(key) => {
          // A row being removed may read once more after its key went: it keeps what it last showed.
          let lastSeen = itemsByKey().get(key)!;
          const item = () => (lastSeen = itemsByKey().get(key) ?? lastSeen);
          return (
            <Switch>
              <Match when={item().kind === 'reset'}>
                <p class="reset-divider" role="separator" data-testid="reset-divider">
                  {t('story.resetDivider', chat.header()?.names[chat.header()!.botId] ?? t('story.theBot'))}
                </p>
              </Match>
              <Match when={item().kind === 'rewound' ? (item() as Extract<TranscriptItem, { kind: 'rewound' }>) : null}>
                {(rewound) => (
                  <div class="rewound-stub" role="note" data-testid="rewound-stub">
                    <span>{t('story.rewoundStub', rewound().stretch.turns)}</span>
                    <span aria-hidden="true"> — </span>
                    <button type="button" class="small quiet" onClick={() => chat.restore(rewound().stretch.seq)} disabled={busy()}>
                      {t('story.restore')}
                    </button>
                  </div>
                )}
              </Match>
              <Match when={item().kind === 'turn' ? (item() as Extract<TranscriptItem, { kind: 'turn' }>) : null}>
                {(row) => (
                  <Show
                    when={!row().turn.hidden}
                    fallback={
                      <div class="rewound-stub" role="note" data-testid="deleted-stub">
                        <span>{t('story.deletedStub', row().turn.speakerName)}</span>
                        <span aria-hidden="true"> — </span>
                        <button type="button" class="small quiet" onClick={() => chat.setHidden(row().turn.turnId, false)} disabled={chat.sending()}>
                          {t('story.undoDelete')}
                        </button>
                      </div>
                    }
                  >
                    <TurnView chat={chat} turn={row().turn} next={row().next} />
                  </Show>
                )}
              </Match>
            </Switch>
          );
        }}
      </For>
      <Show when={pages.turns().length === 0 && pages.latest()}>
        <p class="muted">{t('story.notBegun')}</p>
      </Show>
    </div>
  );
}
