import { createEffect, createMemo, createSignal, on, onCleanup, type Accessor } from 'solid-js';
import type { RewoundStretch, TranscriptPage, TranscriptPlace, TranscriptTurn } from '../../engine/for-ui.ts';
import type { AppClient } from '../engine-client.ts';
import { createLiveQuery } from '../live-query.ts';
import { createStableList } from './stable-list.ts';
import { FIRST_PAGE, takeReadAhead } from '../first-pages.ts';

/** After the first page (`FIRST_PAGE`), turns come 25 at a time as the reader scrolls: a page small enough to lay out within one frame. */
const PAGE = 25;
/** A jump opens this many turns around where it lands. */
const JUMP_PAGE = 40;
/**
 * The most turns the page holds at once, however far the reader scrolls: past it, the turns
 * farthest from where they read go, and the space they took stands in for them.
 */
export const MOST_TURNS_HELD = 150;

/** One row of the transcript as shown: a turn, the stub where a rewind hid some, or the reset divider. */
export type TranscriptItem =
  | { kind: 'turn'; turn: TranscriptTurn; next: TranscriptTurn | undefined }
  | { kind: 'rewound'; stretch: RewoundStretch }
  | { kind: 'reset' };

/** Which end of the held turns a change is at: the view keeps the reader's place around it. */
export type HeldEnd = 'older' | 'newer';

/**
 * The chat's story as the page holds it: a bounded window of turns somewhere in the story. At the
 * end of the story the window ends with the newest page (live); scrolled or jumped away from it,
 * it is a stretch that pages on either way. `keepPlace` runs around every change to what is held,
 * so the reader's place stays where it was.
 */
export function createTranscriptPages(client: AppClient, chatId: Accessor<string>, keepPlace: (change: () => Promise<void>) => Promise<void>) {
  // The transcript is asked for first: the worker answers one query at a time, in order, and the
  // story is what the reader waits for (the header's state and the story's length come after).
  // A page read ahead from the chat list is laid out at once, in the open's first render.
  const latest = createLiveQuery(client, { query: 'transcript', chatId }, () => client.engine.transcript(chatId(), { limit: FIRST_PAGE }), takeReadAhead(client, chatId()));
  const length = createLiveQuery(client, { query: 'transcriptLength', chatId }, () => client.engine.transcriptLength(chatId()));
  /** The turns held before the newest page (or all of them, away from the end), and their stubs. */
  const [held, setHeld] = createSignal<TranscriptTurn[]>([]);
  const [heldRewinds, setHeldRewinds] = createSignal<RewoundStretch[]>([]);
  const [olderCursor, setOlderCursor] = createSignal<number | null | undefined>(undefined);
  /** Away from the end of the story: the seq to load the next turns after. Null at the end. */
  const [newerCursor, setNewerCursor] = createSignal<number | null>(null);
  /** Away from the end: how many turns come before the first held one. */
  const [awayIndex, setAwayIndex] = createSignal(0);
  const atEnd = () => newerCursor() === null;
  /**
   * Where the held earlier pages end: the first turn of the newest page when they were loaded.
   * The newest page slides forward as the story goes on (it is always the latest turns); what
   * slides out of it joins the earlier pages here, or it would vanish between the two.
   */
  let joinedAt: number | null = null;
  /** Bumped whenever what is held is replaced: a page that arrives for an older generation is dropped. */
  let generation = 0;
  const forgetHeld = () => {
    generation++;
    setHeld([]);
    setHeldRewinds([]);
    setOlderCursor(undefined);
    setNewerCursor(null);
    setAwayIndex(0);
    joinedAt = null;
  };

  // Held turns go stale when the chat's transcript changes (a message deleted, an edit, a rewind)
  // or another tab took over: they are read again from the first one held, so the reader stays
  // where they were. The newest page is a live query of its own.
  onCleanup(
    client.onChange((notice) => {
      const ours = notice === 'everything' || (notice.rebuilt ? notice.chats.length === 0 || notice.chats.includes(chatId()) : notice.queries.includes('transcript') && notice.chats.includes(chatId()));
      if (ours && held().length > 0) readHeldSoon();
    }),
  );
  createEffect(on(chatId, forgetHeld));

  const stableTurns = createStableList<TranscriptTurn>((turn) => JSON.stringify(turn));
  /** The turns shown, in story order. */
  // At the end, what is held stops where the newest page starts: after a rewind the newest page
  // may start earlier than when the held turns were read.
  const newestFrom = () => latest()?.turns[0]?.seq ?? Number.MAX_SAFE_INTEGER;
  const turns = createMemo(() => stableTurns(atEnd() ? [...held().filter((t) => t.seq < newestFrom()), ...(latest()?.turns ?? [])] : held()));
  const rewinds = () => (atEnd() ? [...heldRewinds().filter((r) => r.seq < newestFrom()), ...(latest()?.rewinds ?? [])] : heldRewinds());
  /** How many turns of the story come before the first one shown. */
  const firstIndex = createMemo(() => (atEnd() ? Math.max(0, (length() ?? turns().length) - turns().length) : awayIndex()));
  /** How many come after the last one shown (none at the end). */
  const afterCount = createMemo(() => (atEnd() ? 0 : Math.max(0, (length() ?? 0) - awayIndex() - turns().length)));

  const stableItems = createStableList<TranscriptItem>((item) =>
    item.kind === 'turn' ? `turn ${item.turn.turnId} ${JSON.stringify(item.turn)} ${item.next?.seq ?? ''}` : item.kind === 'rewound' ? `rewound ${item.stretch.seq} ${item.stretch.turns}` : 'reset',
  );
  /** The transcript as shown: turns, a stub where a rewind in force hid some, the reset divider. */
  const items = createMemo(() => {
    const stubs = rewinds();
    const list: TranscriptItem[] = [];
    const all = turns();
    const resetSeq = latest()?.resetSeq ?? null;
    let s = 0;
    let dividerShown = false;
    all.forEach((turn, i) => {
      while (s < stubs.length && stubs[s]!.seq < turn.seq) list.push({ kind: 'rewound', stretch: stubs[s++]! });
      if (resetSeq !== null && !dividerShown && turn.seq > resetSeq && (i > 0 || firstIndex() > 0)) {
        list.push({ kind: 'reset' });
        dividerShown = true;
      }
      list.push({ kind: 'turn', turn, next: all[i + 1] });
    });
    while (s < stubs.length) list.push({ kind: 'rewound', stretch: stubs[s++]! });
    if (resetSeq !== null && !dividerShown && atEnd() && all.length > 0 && all.at(-1)!.seq < resetSeq) list.push({ kind: 'reset' });
    return stableItems(list);
  });
  /** The seq to load earlier turns before, or null at the story's start. */
  const cursor = () => (olderCursor() === undefined ? (latest()?.olderCursor ?? null) : olderCursor());

  let joining = false;
  const joinSlidOut = async () => {
    if (joining) return;
    joining = true;
    try {
      for (;;) {
        const first = latest()?.turns[0]?.seq;
        const from = joinedAt;
        if (!atEnd() || from === null || first === undefined || first <= from) return;
        const loaded = held();
        const slid: TranscriptTurn[] = [];
        const stubs: RewoundStretch[] = [];
        for (let before: number | null = first; before !== null && before > from; ) {
          const page = await client.engine.transcript(chatId(), { beforeSeq: before, limit: PAGE });
          slid.unshift(...page.turns.filter((t) => t.seq >= from));
          stubs.unshift(...page.rewinds.filter((r) => r.seq >= from && r.seq < before!));
          before = page.olderCursor;
        }
        // A rebuild, a jump or another chat replaced what is held meanwhile: nothing to join to.
        if (held() !== loaded || joinedAt !== from) continue;
        setHeld([...loaded, ...slid]);
        setHeldRewinds((current) => [...current, ...stubs]);
        joinedAt = first;
      }
    } finally {
      joining = false;
    }
  };
  createEffect(on(latest, () => void joinSlidOut()));

  /**
   * Holds no more than MOST_TURNS_HELD turns: the ones at `end` go. At the end of the story,
   * letting the newest go leaves it: what stays pages on towards the end.
   */
  const letGo = (end: HeldEnd) => {
    const all = turns();
    const extra = all.length - MOST_TURNS_HELD;
    if (extra <= 0) return;
    const stubs = rewinds();
    if (end === 'older') {
      const kept = all.slice(extra);
      const firstKept = kept[0]!.seq;
      if (atEnd()) setHeld(held().filter((t) => t.seq >= firstKept));
      else {
        setHeld(kept);
        setAwayIndex(awayIndex() + extra);
      }
      // A stub before the first turn kept belongs to the page before it, loaded again with it.
      setHeldRewinds(heldRewinds().filter((r) => r.seq > firstKept));
      setOlderCursor(firstKept);
      return;
    }
    const kept = all.slice(0, all.length - extra);
    const firstGone = all[kept.length]!.seq;
    if (atEnd()) {
      setAwayIndex(firstIndex());
      joinedAt = null;
    }
    setHeld(kept);
    setHeldRewinds(stubs.filter((r) => r.seq < firstGone));
    setNewerCursor(kept.at(-1)!.seq);
  };

  /**
   * Holds a stretch of turns in story order (with its stubs and cursors): where it reaches the end
   * of the story, the turns before the live newest page; elsewhere all of it, `index` turns in.
   */
  const hold = (stretch: Pick<TranscriptPage, 'turns' | 'rewinds' | 'olderCursor' | 'newerCursor'>, index: number) => {
    const newest = latest()?.turns[0]?.seq;
    if (stretch.newerCursor === null && newest !== undefined) {
      const before = stretch.turns.filter((t) => t.seq < newest);
      setHeld(before);
      setHeldRewinds(stretch.rewinds.filter((r) => r.seq < newest));
      setOlderCursor(before.length > 0 ? stretch.olderCursor : undefined);
      setNewerCursor(null);
      joinedAt = newest;
      return;
    }
    setHeld(stretch.turns);
    setHeldRewinds(stretch.rewinds);
    setOlderCursor(stretch.olderCursor);
    setNewerCursor(stretch.newerCursor ?? stretch.turns.at(-1)?.seq ?? null);
    setAwayIndex(index);
    joinedAt = null;
  };

  const loadOlderPage = async () => {
    const before = cursor();
    if (before === null) return;
    const at = generation;
    if (atEnd() && held().length === 0) joinedAt = latest()?.turns[0]?.seq ?? null;
    const page = await client.engine.transcript(chatId(), { beforeSeq: before, limit: PAGE });
    if (at !== generation) return;
    await keepPlace(async () => {
      setHeld((current) => [...page.turns, ...current]);
      setHeldRewinds((current) => [...page.rewinds, ...current]);
      setOlderCursor(page.olderCursor);
      if (!atEnd()) setAwayIndex(Math.max(0, awayIndex() - page.turns.length));
      letGo('newer');
    });
  };

  /** Away from the end: the next turns; the page that reaches the end joins the live newest page. */
  const loadNewerPage = async () => {
    const after = newerCursor();
    if (after === null) return;
    const at = generation;
    const page = await client.engine.transcript(chatId(), { afterSeq: after, limit: PAGE });
    if (at !== generation) return;
    await keepPlace(async () => {
      hold({ turns: [...held(), ...page.turns], rewinds: [...heldRewinds(), ...page.rewinds], olderCursor: cursor() ?? null, newerCursor: page.newerCursor }, awayIndex());
      letGo('older');
    });
  };

  // One load at a time: a second call while one runs waits for it (the same cursor twice would
  // show its turns twice).
  let loading: Promise<void> | null = null;
  const one = (load: () => Promise<void>): Promise<void> => (loading ??= load().finally(() => (loading = null)));
  const loadOlder = () => one(loadOlderPage);
  const loadNewer = () => one(loadNewerPage);

  /**
   * Holds the turns around a place in the story instead (a jump, a search hit) and returns the
   * seq of the turn it landed on, or null in a story with no turns.
   */
  const jumpTo = async (place: TranscriptPlace): Promise<number | null> => {
    await loading;
    const at = ++generation;
    const window = await client.engine.transcriptWindow(chatId(), place, JUMP_PAGE);
    if (at !== generation) return null;
    hold(window, window.firstIndex);
    return window.targetSeq;
  };

  // One reading at a time; changes meanwhile (a reply's saves) make one more, not one each.
  let reading: Promise<void> | null = null;
  let readAgain = false;
  const readHeldSoon = () => {
    if (reading) {
      readAgain = true;
      return;
    }
    reading = readHeldAgain().finally(() => {
      reading = null;
      if (readAgain) {
        readAgain = false;
        readHeldSoon();
      }
    });
  };
  const readHeldAgain = async () => {
    // After a page being loaded lands, and dropped if a jump or another chat replaces what is held.
    await loading;
    const first = held()[0];
    if (!first) return;
    const at = generation;
    // At the end, with room for turns the change added, so the page read reaches the end again.
    const count = atEnd() ? turns().length + PAGE : held().length;
    const page = await client.engine.transcript(chatId(), { afterSeq: Math.max(0, first.seq - 1), limit: count });
    if (at !== generation) return;
    await keepPlace(async () => {
      hold(page, firstIndex());
      letGo('older');
    });
  };

  /** Back to the end of the story: only the newest page is held. */
  const jumpToEnd = () => forgetHeld();

  // The latest turns, wherever the reader is: the reply being written is always among them.
  const newestTurns = () => latest()?.turns ?? [];
  /** A turn of the newest page as the transcript shows it, when it does (the views compare by identity). */
  const asShown = (turn: TranscriptTurn | undefined) => turn && (turns().find((t) => t.turnId === turn.turnId) ?? turn);
  const streaming = createMemo(() => newestTurns().find((t) => t.status === 'streaming'));
  /** The story's latest turn. */
  const last = createMemo(() => (atEnd() ? turns().at(-1) : asShown(newestTurns().at(-1))));
  return {
    latest,
    turns,
    items,
    cursor,
    /** Whether the end of the story is held (and follows it live). */
    atEnd,
    firstIndex,
    afterCount,
    length: () => length() ?? turns().length,
    loadOlder,
    loadNewer,
    jumpTo,
    jumpToEnd,
    streaming,
    last,
    /** Above the reset divider: history the narrator no longer reads, so not a reply to steer. */
    beforeReset: (turn: TranscriptTurn) => (latest()?.resetSeq ?? 0) > turn.seq,
    /** The newest of your messages: the one "Save and regenerate" applies to. */
    latestOfYours: createMemo(() => asShown([...(atEnd() ? turns() : newestTurns())].reverse().find((t) => t.role === 'user' && !t.hidden))),
  };
}

export type TranscriptPages = ReturnType<typeof createTranscriptPages>;
