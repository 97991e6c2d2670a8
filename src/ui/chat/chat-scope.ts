import { createEffect, createMemo, createSignal, on, onCleanup, type Accessor } from 'solid-js';
import { closingMarker, type TranscriptPlace, type TranscriptTurn } from '../../engine/for-ui.ts';
import { createAction } from '../action.ts';
import type { AppClient } from '../engine-client.ts';
import { createLiveQuery } from '../live-query.ts';
import { createLiveReply } from './live-reply.ts';
import type { TranscriptPages } from './transcript-pages.ts';
import { t } from '../i18n/index.ts';

/**
 * What the parts of an open chat share: its story (pages, the live reply), its state, and what the
 * player can do to a turn (edit, delete, versions, rewind, branch), with the one action in flight
 * and its error.
 */
export function createChatScope(client: AppClient, chatId: Accessor<string>, pages: TranscriptPages, navigate: (to: string) => void) {
  const header = createLiveQuery(client, { query: 'chatState', chatId }, () => client.engine.chatState(chatId()));
  const settings = createLiveQuery(client, { query: 'settings' }, () => client.engine.settings());
  const { run, busy: sending, error, clearError } = createAction();
  const [editing, setEditing] = createSignal<{ turnId: string; text: string } | null>(null);
  const [inspecting, setInspecting] = createSignal<string | null>(null);
  const [rewindFrom, setRewindFrom] = createSignal<number | null>(null);
  const [rewound, setRewound] = createSignal<{ seq: number; turns: number } | null>(null);
  /** How the transcript shown goes to a place in the story (the view sets it; the header's jumps call it). */
  const [goTo, setGoTo] = createSignal<(place: TranscriptPlace) => void>(() => undefined);
  createEffect(on(chatId, () => (setRewindFrom(null), setRewound(null), setInspecting(null), setEditing(null), clearError())));
  const { live, textOf, thinkingOf } = createLiveReply(client, chatId, pages.streaming);
  const versions = createMemo(() => (pages.streaming() ? null : (pages.last()?.versions ?? null)));

  // Focus goes back to what opened an editor or a dialog when it closes (a message's actions
  // button, most often), or to the message box when that is gone.
  let opener: HTMLElement | null = null;
  const rememberOpener = () => {
    opener = document.activeElement instanceof HTMLElement && document.activeElement !== document.body ? document.activeElement : null;
  };
  const returnFocus = () =>
    requestAnimationFrame(() => {
      const target = opener?.isConnected ? opener : document.getElementById('composer-input');
      opener = null;
      target?.focus();
    });
  // A Regenerate or Continue from the keyboard removes the button pressed: focus follows the reply,
  // to Stop while it streams and to the new reply's Regenerate when it is done.
  let focusFollowsReply = false;
  const followReply = () => {
    const from = document.activeElement;
    focusFollowsReply = from instanceof HTMLElement && from !== document.body;
  };
  createEffect(
    on(pages.streaming, (streaming) => {
      if (!focusFollowsReply) return;
      requestAnimationFrame(() => {
        const lost = !document.activeElement || document.activeElement === document.body;
        if (streaming) {
          if (lost) document.querySelector<HTMLElement>('.composer .stop')?.focus();
          return;
        }
        focusFollowsReply = false;
        const stillOnStop = document.activeElement?.classList.contains('stop');
        if (lost || stillOnStop) {
          const latest = document.querySelector<HTMLElement>('.turn-footer button.regenerate');
          (latest ?? document.getElementById('composer-input'))?.focus();
        }
      });
    }),
  );

  // The toast after a rewind offers Undo for a while; the stub in the story offers Restore for good.
  let toastTimer: ReturnType<typeof setTimeout> | undefined;
  onCleanup(() => clearTimeout(toastTimer));

  const scope = {
    client,
    chatId,
    pages,
    header,
    live,
    textOf,
    thinkingOf,
    run,
    sending,
    error,
    editing,
    setEditing,
    inspecting,
    setInspecting,
    rewindFrom,
    setRewindFrom,
    rewound,
    versions,
    goTo: (place: TranscriptPlace) => goTo()(place),
    setGoTo: (go: (place: TranscriptPlace) => void) => setGoTo(() => go),
    /** The out-of-character marker and its closing mirror, as the settings have them. */
    ooc: createMemo((): [string, string] => {
      const marker = settings()?.oocMarker ?? '((';
      return [marker, closingMarker(marker)];
    }),
    /** Whether the latest turn is a reply the narrator may write again or go on with (not the author's opening, nor history before a reset). */
    canRedoLast: () => {
      const last = pages.last();
      return last?.role === 'assistant' && last.model !== 'kickoff' && !pages.beforeReset(last);
    },
    regenerate: () => {
      followReply();
      void run(() => client.engine.regenerate(chatId()));
    },
    continueReply: () => {
      followReply();
      void run(() => client.engine.continueReply(chatId()));
    },
    /** "Let <name> speak": that bot answers next. */
    letSpeak: (botId: string) => {
      followReply();
      void run(() => client.engine.letSpeak(chatId(), botId));
    },
    /** The bots present who may be given the turn, when there is more than one (a group scene). */
    voices: createMemo((): { id: string; name: string }[] => {
      const state = header();
      if (!state) return [];
      const present = state.activities.filter((a) => a.entity !== 'you' && a.status === 'present');
      return present.length > 1 ? present.map((a) => ({ id: a.entity, name: state.names[a.entity] ?? t('people.someone') })) : [];
    }),
    startEditing(turn: TranscriptTurn) {
      rememberOpener();
      setEditing({ turnId: turn.turnId, text: turn.text });
    },
    closeEditor() {
      setEditing(null);
      returnFocus();
    },
    inspect(turnId: string) {
      rememberOpener();
      setInspecting(turnId);
    },
    closeInspector() {
      setInspecting(null);
      returnFocus();
    },
    rewindTo(seq: number) {
      rememberOpener();
      setRewindFrom(seq);
    },
    closeRewind() {
      setRewindFrom(null);
      returnFocus();
    },
    stop: () => void client.engine.stopTurn(chatId()),
    /** Another version of the latest reply, or of the reply at a fork (`fork.at`, as it shows `fork.shown`). */
    chooseVersion(number: number, fork?: { at: number; shown: { number: number; of: number } }) {
      const shown = fork ? fork.shown : versions();
      if (!shown || number < 1 || number > shown.of || number === shown.number || sending()) return;
      void run(() => client.engine.chooseVersion(chatId(), number, fork?.at ?? null));
    },
    restore: (rewindSeq: number) =>
      void run(async () => {
        await client.engine.undoRewind(chatId(), rewindSeq);
        if (rewound()?.seq === rewindSeq) setRewound(null);
      }),
    showRewound(rewind: { seq: number; turns: number }) {
      setRewindFrom(null);
      returnFocus();
      setRewound(rewind);
      clearTimeout(toastTimer);
      toastTimer = setTimeout(() => setRewound(null), 12_000);
    },
    saveEdit(regenerateAfter: boolean) {
      const edit = editing();
      if (!edit) return;
      void run(async () => {
        await client.engine.editTurn(chatId(), edit.turnId, edit.text);
        scope.closeEditor();
        if (regenerateAfter) await client.engine.regenerate(chatId());
      });
    },
    branchFrom: (seq: number) =>
      void run(async () => {
        const branch = await client.engine.branchChat(chatId(), seq);
        navigate(`/chats/${branch}`);
      }),
    setHidden: (turnId: string, hidden: boolean) => void run(() => client.engine.setTurnHidden(chatId(), turnId, hidden)),
    /** What saving this edit will do to the story, said in the editor before the player saves. */
    editHint: (turn: TranscriptTurn) =>
      turn.role === 'assistant' && turn === pages.last()
        ? t('story.editHintReply')
        : turn === pages.latestOfYours()
          ? t('story.editHintLatest')
          : t('story.editHintOlder'),
  };
  return scope;
}

export type ChatScope = ReturnType<typeof createChatScope>;
