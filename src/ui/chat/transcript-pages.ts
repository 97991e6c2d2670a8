import { createEffect, createMemo, createSignal, on, onCleanup, type Accessor } from 'solid-js';
import type { RewoundStretch, TranscriptTurn } from '../../engine/for-ui.ts';
import type { AppClient } from '../engine-client.ts';
import { createLiveQuery } from '../live-query.ts';
import { createStableList } from './stable-list.ts';

/**
 * A chat opens on its latest 20 turns (what fills a screen or two: laying out 50 long ones was a
 * fifth of opening a 10,000-turn chat); earlier turns come 50 at a time as the reader scrolls up.
 */
const FIRST_PAGE = 20;
const PAGE = 50;

/** One row of the transcript as shown: a turn, the stub where a rewind hid some, or the reset divider. */
export type TranscriptItem =
  | { kind: 'turn'; turn: TranscriptTurn; next: TranscriptTurn | undefined }
  | { kind: 'rewound'; stretch: RewoundStretch }
  | { kind: 'reset' };

/**
 * The chat's story as the page holds it: the newest page (live), the earlier pages loaded as the
 * reader scrolls up, and the rows they make. `keepPlace` runs around a page loaded above the view.
 */
export function createTranscriptPages(client: AppClient, chatId: Accessor<string>, keepPlace: (load: () => Promise<void>) => Promise<void>) {
  // The transcript is asked for first: the worker answers one query at a time, in order, and the
  // story is what the reader waits for (the header's state comes a moment after).
  const latest = createLiveQuery(client, { query: 'transcript', chatId }, () => client.engine.transcript(chatId(), { limit: FIRST_PAGE }));
  const [older, setOlder] = createSignal<TranscriptTurn[]>([]);
  const [olderRewinds, setOlderRewinds] = createSignal<RewoundStretch[]>([]);
  const [olderCursor, setOlderCursor] = createSignal<number | null | undefined>(undefined);
  /**
   * Where the loaded earlier pages end: the first turn of the newest page when they were loaded.
   * The newest page slides forward as the story goes on (it is always the latest turns); what
   * slides out of it joins the earlier pages here, or it would vanish between the two.
   */
  let joinedAt: number | null = null;
  const forgetOlder = () => {
    setOlder([]);
    setOlderRewinds([]);
    setOlderCursor(undefined);
    joinedAt = null;
  };

  // Older pages go stale when the story is rebuilt (rewind, regenerate) or another tab took over.
  onCleanup(
    client.onChange((notice) => {
      if (notice === 'everything' || (notice.rebuilt && (notice.chats.length === 0 || notice.chats.includes(chatId())))) forgetOlder();
    }),
  );
  createEffect(on(chatId, forgetOlder));

  const stableTurns = createStableList<TranscriptTurn>((turn) => JSON.stringify(turn));
  const turns = createMemo(() => stableTurns([...older(), ...(latest()?.turns ?? [])]));
  const stableItems = createStableList<TranscriptItem>((item) =>
    item.kind === 'turn' ? `turn ${item.turn.turnId} ${JSON.stringify(item.turn)} ${item.next?.seq ?? ''}` : item.kind === 'rewound' ? `rewound ${item.stretch.seq} ${item.stretch.turns}` : 'reset',
  );
  /** The transcript as shown: turns, a stub where a rewind in force hid some, the reset divider. */
  const items = createMemo(() => {
    const stubs = [...olderRewinds(), ...(latest()?.rewinds ?? [])];
    const list: TranscriptItem[] = [];
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

  const loadOlderPage = async () => {
    const before = cursor();
    if (before === null) return;
    if (older().length === 0) joinedAt = latest()?.turns[0]?.seq ?? null;
    await keepPlace(async () => {
      const page = await client.engine.transcript(chatId(), { beforeSeq: before, limit: PAGE });
      setOlder((current) => [...page.turns, ...current]);
      setOlderRewinds((current) => [...page.rewinds, ...current]);
      setOlderCursor(page.olderCursor);
    });
  };
  // One page at a time: a second call while one loads waits for it (the same cursor twice would
  // show its turns twice).
  let loadingOlder: Promise<void> | null = null;
  const loadOlder = (): Promise<void> => (loadingOlder ??= loadOlderPage().finally(() => (loadingOlder = null)));

  const streaming = createMemo(() => turns().find((t) => t.status === 'streaming'));
  const last = createMemo(() => turns().at(-1));
  return {
    latest,
    turns,
    items,
    /** The seq to load earlier turns before, or null at the story's start. */
    cursor,
    loadOlder,
    streaming,
    last,
    /** Above the reset divider: history the narrator no longer reads, so not a reply to steer. */
    beforeReset: (turn: TranscriptTurn) => (latest()?.resetSeq ?? 0) > turn.seq,
    /** The newest of your messages still shown: the one "Save and regenerate" applies to. */
    latestOfYours: createMemo(() => [...turns()].reverse().find((t) => t.role === 'user' && !t.hidden)),
  };
}

export type TranscriptPages = ReturnType<typeof createTranscriptPages>;
