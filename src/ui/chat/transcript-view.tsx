import { useSearchParams } from '@solidjs/router';
import { createEffect, createMemo, createSignal, For, Match, on, onCleanup, Show, Switch } from 'solid-js';
import type { TranscriptPlace } from '../../engine/for-ui.ts';
import type { ChatScope } from './chat-scope.ts';
import type { TranscriptItem } from './transcript-pages.ts';
import { TurnView } from './turn-view.tsx';
import { t } from '../i18n/index.ts';

/** How far beyond the screen the next turns start loading, so scrolling rarely waits. */
const LOAD_AHEAD_PX = 800;
/**
 * The most space the turns not held may stand for: browsers cap an element's height (Firefox near
 * 17.9 million px), so in a very long story a turn not held stands for less than its height.
 */
const MOST_SPACE_PX = 8_000_000;
/** What a turn not held stands for until the ones shown have been measured. */
const FIRST_GUESS_PX = 160;
/**
 * A chat opened at its end draws its newest rows in its first frame, and the rest of its first page
 * once that frame is shown: the screen's worth a player sees first, without laying out the turns
 * above the fold before it. Opening a 200-turn chat went from a median of 38 ms to 28
 * (`npm run bench -- budget`); the rows come a frame or two later, out of sight above the view.
 */
const FIRST_FRAME_ROWS = 6;

/** The first turn, stub or divider on screen: what the reader's place is kept by. */
export function firstRowInView(scroller: HTMLElement): HTMLElement | undefined {
  const top = scroller.getBoundingClientRect().top;
  for (const row of scroller.children) {
    if (row.classList.contains('transcript-space') || row.classList.contains('load-older')) continue;
    if (row.getBoundingClientRect().bottom > top) return row as HTMLElement;
  }
  return undefined;
}

/**
 * The story as it scrolls: turns, rewound and deleted stubs, the reset divider. The page holds a
 * bounded window of turns; the space above and below it stands for the rest, so the scrollbar is
 * the whole story and dragging it anywhere opens the turns there. It follows the story as it grows
 * unless the reader scrolled up, and opens at a search hit's turn.
 */
export function TranscriptView(props: { chat: ChatScope; ref: (el: HTMLDivElement) => void }) {
  const chat = props.chat;
  const pages = chat.pages;
  let scroller: HTMLDivElement | undefined;
  let above: HTMLDivElement | undefined;
  let below: HTMLDivElement | undefined;
  // Follow the story as it grows, unless the reader scrolled up to read: decided when they scroll,
  // not after new text has landed (a long reply arriving is not the reader scrolling away).
  let stick = true;
  /** Where the last move to the end left the view. */
  let endTop = -1;
  const toEnd = () => {
    if (!stick || !scroller || !pages.atEnd()) return;
    scroller.scrollTop = scroller.scrollHeight;
    endTop = scroller.scrollTop;
  };

  /** What one turn not held stands for: the mean height of those shown, measured once they fill a screen. */
  const [turnSpace, setTurnSpace] = createSignal(FIRST_GUESS_PX);
  let measured = false;
  const space = (turns: number) => turns * Math.min(turnSpace(), MOST_SPACE_PX / Math.max(1, pages.length()));

  /** Where the rows held begin and end, in the scroller's content. */
  const heldSpan = () => {
    const top = scroller!.getBoundingClientRect().top - scroller!.scrollTop;
    return { top: above!.getBoundingClientRect().bottom - top, bottom: below!.getBoundingClientRect().top - top };
  };

  /**
   * Jumps in flight. The view follows the scroll again only when the last has landed: a jump that
   * lands while a newer one is on its way (its turns are dropped) following the scroll started
   * another jump, which the next one dropped, without end.
   */
  let navigating = 0;
  /** Opens the turns around a place and shows the one landed on at the top of the view (or centred). */
  const goTo = async (place: TranscriptPlace, align: 'start' | 'center' = 'start'): Promise<HTMLElement | null> => {
    navigating++;
    stick = false;
    try {
      const seq = await pages.jumpTo(place);
      const found = seq === null ? null : scroller?.querySelector<HTMLElement>(`.turn[data-seq="${seq}"], [data-seq="${seq}"]`);
      if (found && scroller) {
        const offset = found.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
        scroller.scrollTop += align === 'start' ? offset - 8 : offset - (scroller.clientHeight - found.offsetHeight) / 2;
      }
      return found ?? null;
    } finally {
      if (--navigating === 0) queueMicrotask(followScroll);
    }
  };

  /**
   * Loads what the view has come near, or, where it has moved into the space standing for turns
   * not held (the scrollbar dragged, a fling), opens the turns there.
   */
  const followScroll = () => {
    // Until the first page's rows above the first frame's are drawn, the view is not near its top.
    if (!scroller || !above || !below || navigating > 0 || deferred() > 0) return;
    const top = scroller.scrollTop;
    const bottom = top + scroller.clientHeight;
    const held = heldSpan();
    if (pages.firstIndex() > 0 && bottom < held.top) {
      void goTo({ index: Math.max(0, Math.floor(top / space(1))) });
    } else if (pages.afterCount() > 0 && top > held.bottom) {
      void goTo({ index: pages.firstIndex() + pages.turns().length + Math.floor((top - held.bottom) / space(1)) });
    } else if (pages.cursor() !== null && top < held.top + LOAD_AHEAD_PX) {
      void pages.loadOlder().then(() => queueMicrotask(followScroll));
    } else if (!pages.atEnd() && bottom > held.bottom - LOAD_AHEAD_PX) {
      void pages.loadNewer().then(() => queueMicrotask(followScroll));
    }
  };
  /** Away from the end of the story, or a screen or more above it: "Jump to the latest" shows. */
  const [away, setAway] = createSignal(false);
  let scrollFrame = 0;
  const onScroll = () => {
    if (!scroller) return;
    setAway(!pages.atEnd() || scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight > scroller.clientHeight);
    if (!scrollFrame) scrollFrame = requestAnimationFrame(() => ((scrollFrame = 0), followScroll()));
    // The scroll event of our own move to the end comes a frame later, maybe after more text or a
    // footer landed below: that is not the reader scrolling away. Only a move up from there is.
    if (stick && scroller.scrollTop >= endTop - 1) return;
    stick = pages.atEnd() && scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
  };
  onCleanup(() => cancelAnimationFrame(scrollFrame));
  createEffect(on([() => pages.latest()?.turns, () => chat.live()?.text.length], () => stick && queueMicrotask(toEnd)));
  // Stuck to the end, the reader stays there while the page settles: the composer's buttons and the
  // newest turn's footer come with later answers and took their height from the view, so a chat
  // opened with its newest reply hidden below the fold.
  const settle = new ResizeObserver(toEnd);
  createEffect(
    on([pages.items, () => rows().length], () => {
      if (!scroller) return;
      settle.disconnect();
      settle.observe(scroller);
      const newest = below?.previousElementSibling;
      if (newest) settle.observe(newest);
      // Once the turns shown fill a screen, their mean height is what a turn not held stands for.
      const shown = pages.turns().length;
      if (!measured && below && above && shown >= 8 && deferred() === 0) {
        const held = heldSpan();
        if (held.bottom - held.top > scroller.clientHeight) {
          measured = true;
          setTurnSpace(Math.max(40, (held.bottom - held.top) / shown));
        }
      }
    }),
  );
  onCleanup(() => settle.disconnect());
  createEffect(
    on(chat.chatId, () => {
      stick = true;
      measured = false;
    }),
  );

  // A search hit opens the chat at its turn (?turn=<seq>), once the story's length has sized the
  // space around the turns held: with a first page read ahead it is there before the length, and a
  // view placed meanwhile moved when the space did, into turns elsewhere.
  // Once per hit: the newest page and the length are live, and each answer again would jump again.
  const [query] = useSearchParams<{ turn?: string }>();
  let jumpedFor: string | null = null;
  createEffect(
    on([() => query.turn, () => pages.latest() !== undefined && pages.length() !== undefined], ([turn, loaded]) => {
      const seq = Number(turn);
      if (!turn || !loaded || !Number.isInteger(seq) || jumpedFor === `${chat.chatId()} ${turn}`) return;
      jumpedFor = `${chat.chatId()} ${turn}`;
      void goTo({ seq }, 'center').then((found) => {
        if (!found) return;
        found.classList.add('found');
        setTimeout(() => found.classList.remove('found'), 4_000);
      });
    }),
  );

  const busy = () => chat.sending() || Boolean(pages.streaming());
  // Rows are keyed by what they show (a turn by its id), not by the object: a turn that changes
  // (its reply finishing, its analysis landing) updates in place, so an open menu, a selection or
  // a focused control in it stays.
  const keyOf = (item: TranscriptItem) => (item.kind === 'turn' ? `turn:${item.turn.turnId}` : item.kind === 'rewound' ? `rewound:${item.stretch.seq}` : 'reset');
  const itemsByKey = createMemo(() => new Map(pages.items().map((item) => [keyOf(item), item])));
  const keys = createMemo(() => pages.items().map(keyOf), [], { equals: (a, b) => a.length === b.length && a.every((key, i) => key === b[i]) });
  const [firstFrame, setFirstFrame] = createSignal(true);
  createEffect(
    on(chat.chatId, () => {
      setFirstFrame(true);
      // The frame after the first has begun only once the first was shown. The rows then drawn
      // land above the view, which stays at the end.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const showAll = () => {
        setFirstFrame(false);
        toEnd();
      };
      let frame = requestAnimationFrame(() => (frame = requestAnimationFrame(() => (timer = setTimeout(showAll)))));
      onCleanup(() => {
        cancelAnimationFrame(frame);
        clearTimeout(timer);
      });
    }),
  );
  /** Rows of the first page left for the frame after the first (none when a search hit opens the chat elsewhere). */
  const deferred = () => (firstFrame() && pages.atEnd() && !query.turn ? Math.max(0, keys().length - FIRST_FRAME_ROWS) : 0);
  const rows = createMemo(() => keys().slice(deferred()), [], { equals: (a, b) => a.length === b.length && a.every((key, i) => key === b[i]) });
  const toLatest = () => {
    pages.jumpToEnd();
    stick = true;
    setAway(false);
    queueMicrotask(toEnd);
  };
  chat.setGoTo((place) => void goTo(place));
  // A reply being written is at the end of the story: the view goes there to show it.
  createEffect(on(pages.streaming, (streaming) => streaming && !pages.atEnd() && toLatest()));
  return (
    <>
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
        <div class="transcript-space" aria-hidden="true" ref={above} style={{ height: `${space(pages.firstIndex() + deferred())}px` }} />
        <Show when={pages.cursor() !== null && pages.latest()}>
          <button type="button" class="load-older" onClick={() => void pages.loadOlder()}>
            {t('story.loadEarlier')}
          </button>
        </Show>
        <For each={rows()}>
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
        <div class="transcript-space" aria-hidden="true" ref={below} style={{ height: `${space(pages.afterCount())}px` }} />
        <Show when={pages.turns().length === 0 && pages.latest()}>
          <p class="muted">{t('story.notBegun')}</p>
        </Show>
      </div>
      <Show when={away() || !pages.atEnd()}>
        <button type="button" class="jump-latest small" onClick={toLatest}>
          <svg aria-hidden="true" width="14" height="14" viewBox="0 0 16 16" fill="none" stroke="currentColor" stroke-width="1.5">
            <path d="M3 13.5h10M8 2v8M4.5 6.5 8 10l3.5-3.5" />
          </svg>
          {t('story.jumpLatest')}
        </button>
      </Show>
    </>
  );
}
