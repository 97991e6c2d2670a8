import { createEffect, createSignal, on, onCleanup, type Accessor } from 'solid-js';
import { streamTopic, type StreamMessage, type TranscriptTurn } from '../../engine/for-ui.ts';
import type { AppClient } from '../engine-client.ts';

/**
 * The text of the reply streaming in this chat, as this tab mirrors it. The leader streams each
 * reply once; every tab applies its numbered deltas. While the text so far is being read, deltas
 * are held and applied after it: one read, nothing dropped.
 */
export function createLiveReply(client: AppClient, chatId: Accessor<string>, streaming: Accessor<TranscriptTurn | undefined>) {
  const [live, setLive] = createSignal<{ turnId: string; text: string; seq: number } | null>(null);
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
  createEffect(on(chatId, () => setLive(null)));
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
  return {
    live,
    /** A turn's text as shown: a streaming reply's mirrored text (a continued one includes its earlier text). */
    textOf: (turn: TranscriptTurn) => (turn.status === 'streaming' && live()?.turnId === turn.turnId ? live()!.text : turn.text),
  };
}
