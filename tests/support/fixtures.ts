import type { EventDraft } from '../../src/engine/log/draft.ts';

/** Valid drafts with sensible defaults; tests override only what they are about. */
export const draft = {
  you(over: Partial<{ name: string; pronouns: string; persona: string }> = {}): EventDraft {
    return { kind: 'you_authored', payload: { name: 'Ada', pronouns: 'she/her', persona: 'A cartographer.', ...over } };
  },
  bot(botId: string, over: Partial<Record<string, unknown>> = {}): EventDraft {
    return {
      kind: 'bot_authored',
      payload: {
        botId,
        name: 'Mira',
        persona: 'A wry ship captain.',
        voiceSamples: ['"Hold fast."'],
        traits: ['wry', 'loyal'],
        backstory: 'Grew up on the docks.',
        initialRelationship: 'Old friends.',
        kickoff: 'The storm hits as you board.',
        ...over,
      } as never,
    };
  },
  chat(chatId: string, botId: string, over: Partial<Record<string, unknown>> = {}): EventDraft {
    return {
      kind: 'chat_created',
      chatId,
      payload: {
        botId,
        title: 'Storm crossing',
        fictionTime: '1890-05-01T20:00:00',
        weather: 'storm',
        narrativeAnchor: 'Reach the harbour.',
        ...over,
      } as never,
    };
  },
  memory(chatId: string, memoryId: string, ownerId: string, over: Partial<Record<string, unknown>> = {}): EventDraft {
    return {
      kind: 'memory_written',
      chatId,
      payload: {
        memoryId,
        ownerId,
        sceneId: null,
        summary: 'Ada hid the map in her boot.',
        witness: { you: true, host: true, guest: false },
        fictionTime: '1890-05-01T20:05:00',
        source: 'witnessed',
        reliability: 1,
        significance: 1,
        pinned: false,
        autoPinned: false,
        ...over,
      } as never,
    };
  },
  edge(chatId: string, source: string, target: string, over: Partial<Record<string, unknown>> = {}): EventDraft {
    return {
      kind: 'edge_update',
      chatId,
      payload: { source, target, affinityDelta: 0, trustDelta: 0, facts: [], lastInteraction: null, ...over } as never,
    };
  },
  userTurn(chatId: string, turnId: string, text = 'Hello.'): EventDraft {
    return { kind: 'user_turn', chatId, payload: { turnId, text, segments: [{ type: 'narration', text }] } };
  },
  assistantStarted(chatId: string, turnId: string, speaker: string): EventDraft {
    return { kind: 'assistant_turn_started', chatId, payload: { turnId, speaker, model: 'test-model' } };
  },
  assistantTurn(chatId: string, turnId: string, speaker: string, text: string, over: Partial<Record<string, unknown>> = {}): EventDraft {
    return {
      kind: 'assistant_turn',
      chatId,
      payload: {
        turnId,
        speaker,
        model: 'test-model',
        text,
        truncated: false,
        reason: null,
        usage: { promptTokens: 100, completionTokens: 20 },
        ...over,
      } as never,
    };
  },
};

/** A confirmed kickoff for startChat: aboard the Gull at 20:00, both standing and talking. */
export function kickoffInput(over: Partial<Record<string, unknown>> = {}) {
  const standing = { posture: 'standing', slot: '', verb: 'talking', interruptible: true, requiredAttention: 'low', expectedMinutes: null, attention: '', holding: [] };
  return {
    title: 'Storm crossing',
    place: { name: 'The Gull', type: 'ship', moving: true, public: false, audibleRange: 'room' },
    fictionTime: '1890-05-01T20:00:00',
    weather: 'storm',
    you: standing,
    bot: standing,
    edge: { summary: 'Old friends.', facts: [] },
    ...over,
  };
}

/** A player's line, the reply to it, and what the reply's analysis wrote (a feeling, a memory), to append as one. */
export function analysedExchange(newId: () => string, chat: string, bot: string, text: string): EventDraft[] {
  const turn = newId();
  return [
    draft.userTurn(chat, newId(), text),
    draft.assistantStarted(chat, turn, bot),
    { ...draft.assistantTurn(chat, turn, bot, `Mira answers ${text}.`), causeDraft: 1 },
    { ...draft.edge(chat, bot, 'you', { affinityDelta: 2, facts: [`heard ${text}`] }), causeDraft: 2 },
    { ...draft.memory(chat, newId(), bot, { summary: `Ada said ${text}.` }), causeDraft: 2 },
  ];
}
