import { createEffect, createSignal, on, onCleanup, type Accessor } from 'solid-js';
import { streamTopic, type StreamMessage, type StreamState, type TranscriptTurn } from '../../engine/for-ui.ts';
import type { AppClient } from '../engine-client.ts';

/** One message applied to the reply as this tab holds it. */
function applied(state: StreamState, message: StreamMessage, seq: number): StreamState {
  switch (message.type) {
    case 'delta':
      return { ...state, text: state.text + message.text, seq };
    case 'thinking':
      return message.moved
        ? { ...state, text: state.text.slice(0, state.text.length - message.text.length), thinking: state.thinking + message.text, seq }
        : { ...state, thinking: state.thinking + message.text, seq };
    case 'thought':
      return { ...state, thoughtMs: message.ms, seq };
    default:
      return { ...state, seq };
  }
}

/**
 * The reply streaming in this chat, as this tab mirrors it: its text and a thinking model's
 * thinking. The leader streams each reply once; every tab applies its numbered messages. While the
 * reply so far is being read, messages are held and applied after it: one read, nothing dropped.
 */
export function createLiveReply(client: AppClient, chatId: Accessor<string>, streaming: Accessor<TranscriptTurn | undefined>) {
  const [live, setLive] = createSignal<StreamState | null>(null);
  let syncing: { seq: number; message: StreamMessage }[] | null = null;
  const syncLive = async () => {
    if (syncing) return;
    syncing = [];
    try {
      let state = await client.engine.streamState(chatId());
      for (const held of syncing) {
        if (state && held.message.turnId === state.turnId && held.seq === state.seq + 1) state = applied(state, held.message, held.seq);
      }
      setLive(state);
    } finally {
      syncing = null;
    }
  };
  createEffect(on(chatId, () => setLive(null)));
  createEffect(on(() => streaming()?.turnId, (turnId) => (turnId ? void syncLive() : setLive(null))));
  onCleanup(
    client.onPublish((topic, seq, data) => {
      if (topic !== streamTopic(chatId())) return;
      const message = data as StreamMessage;
      const current = live();
      if (message.type === 'end') return setLive(null);
      if (syncing) return void syncing.push({ seq, message });
      if (!current || current.turnId !== message.turnId) return void syncLive();
      if (seq <= current.seq) return;
      if (seq !== current.seq + 1) return void syncLive(); // a message went missing: read the whole reply
      setLive(applied(current, message, seq));
    }),
  );
  const streamingHere = (turn: TranscriptTurn) => turn.status === 'streaming' && live()?.turnId === turn.turnId;
  return {
    live,
    /** A turn's text as shown: a streaming reply's mirrored text (a continued one includes its earlier text). */
    textOf: (turn: TranscriptTurn) => (streamingHere(turn) ? live()!.text : turn.text),
    /** A turn's thinking as shown: a streaming reply's so far (`ms` null while it still thinks), else what was kept. */
    thinkingOf: (turn: TranscriptTurn): { text: string; ms: number | null; live: boolean } | null => {
      if (streamingHere(turn)) {
        const state = live()!;
        return state.thinking ? { text: state.thinking, ms: state.thoughtMs, live: state.thoughtMs === null } : null;
      }
      return turn.thinking ? { ...turn.thinking, live: false } : null;
    },
  };
}
