import { z } from 'zod';
import { defineCommand, defineQuery, id, type CallEnv } from '../call.ts';
import type { LogContext } from '../log/context.ts';
import { personaOf } from '../authoring/personas.ts';
import { readSettings } from '../settings/settings.ts';
import { narratorPrompt } from '../turn/narrator-prompt.ts';
import { turnCommands } from '../turn/turn-commands.ts';
import { samplerFor } from '../queries/chat-state.ts';
import type { LlmClient } from '../llm/port.ts';
import { narrate, type NarrationResult } from '../turn/narrate.ts';
import { headSeq } from '../log/head.ts';
import type { TokenCounter } from '../turn/tokens.ts';
import { FRAMING, isExactCount, type CountedWith, type TokenizerFamily } from '../turn/tokenizer-family.ts';
import type { StartedTurn } from '../turn/turn-commands.ts';
import { joinContinuation, withContinuation } from '../turn/continuation.ts';
import type { PromptReport } from '../turn/prompt-report.ts';
import { nextToAnswer } from '../turn/reply-order.ts';
import { castOf } from '../analysis/cast.ts';
import { stopStringsFor } from '../turn/reply-cut.ts';
import { budgetFromContext, createModelLimits } from './model-limits.ts';

import { streamTopic, type StreamMessage } from './stream.ts';

export { streamTopic, type StreamMessage };
export interface StreamState {
  turnId: string;
  text: string;
  /** A thinking model's thinking so far, and how long it took once the reply began (null: still thinking, or none). */
  thinking: string;
  thoughtMs: number | null;
  /** The topic seq this text includes: follow with the deltas after it. */
  seq: number;
}

/**
 * How often a streaming reply is saved for a crash to come back to (kept as interrupted). Each save
 * is a commit of its own; at 2 s a reply of a few seconds costs one or two instead of six, and a
 * crash loses at most the last two seconds of a reply that was going to be cut anyway.
 */
export const CHECKPOINT_MS = 2_000;
const IMPERSONATE_TOKENS = 250;

/** A model's draft as the composer should hold it: without a "Name:" label it may have put first. */
export function draftOf(text: string, youName: string): string {
  const trimmed = text.trim();
  const label = youName && trimmed.toLowerCase().startsWith(`${youName.toLowerCase()}:`) ? youName.length + 1 : 0;
  return trimmed.slice(label).trim();
}

export interface NarratorDeps {
  ctx: LogContext;
  llm: LlmClient;
  /** A counter with the family's own tokenizer (cl100k with its margin where none). */
  tokens: (family?: TokenizerFamily | null) => Promise<TokenCounter>;
  /** What that counter counts with right now (the family's tokenizer, cl100k, or lengths while it loads). */
  countedWith?: (family: TokenizerFamily | null) => CountedWith;
  /** Tells every tab what the last writes changed. */
  notify: (rebuilt: boolean) => void;
  publish: (topic: string, data: StreamMessage) => number;
  topicSeq: (topic: string) => number;
  now: () => number;
}

interface LiveReply {
  turn: StartedTurn;
  controller: AbortController;
  /** What the tabs have been sent: the text at the topic's current seq. */
  text: string;
  thinking: string;
  thoughtMs: number | null;
  /** Deltas of the current burst not yet sent (see `mirror`). */
  held: string;
  /** Set from a burst's first delta until the next task. */
  burst: boolean;
  /** Settles once the reply is committed. */
  done?: Promise<void>;
}

/**
 * The leader's narrator: it alone calls the relay, once per reply however many tabs watch, and
 * mirrors the stream to them. Only one reply per chat streams at a time.
 */
export class NarratorService {
  private readonly live = new Map<string, LiveReply>();
  private readonly turns: ReturnType<typeof turnCommands>;
  private readonly limits: ReturnType<typeof createModelLimits>;

  constructor(private readonly deps: NarratorDeps) {
    this.turns = turnCommands(deps.ctx);
    this.limits = createModelLimits(deps.llm, deps.now);
  }

  /** Stop: the reply keeps what it has, marked truncated. */
  stop(chatId: string): boolean {
    const entry = this.live.get(chatId);
    entry?.controller.abort();
    return Boolean(entry);
  }

  /**
   * How the model's prompts are counted and sized: with its family's tokenizer (its id, or its class
   * in the server's model list, tells which), and from the context its server lists, asked once
   * and kept a while, when the player lets the model size the budget.
   */
  async countingFor(model: string, budgetFromModel: boolean): Promise<{ count: TokenCounter; family: TokenizerFamily | null; countedWith: CountedWith | undefined; context: number | null }> {
    const [family, context] = await Promise.all([this.limits.familyOf(model), budgetFromModel ? this.limits.contextOf(model) : null]);
    const count = await this.deps.tokens(family);
    return { count, family, countedWith: this.deps.countedWith?.(family), context };
  }

  /** Resolves when no reply is streaming. */
  async idle(): Promise<void> {
    while (this.live.size > 0) await Promise.all([...this.live.values()].map((e) => e.done));
  }

  state(chatId: string): StreamState | null {
    const entry = this.live.get(chatId);
    return entry ? { turnId: entry.turn.turnId, text: entry.text, thinking: entry.thinking, thoughtMs: entry.thoughtMs, seq: this.deps.topicSeq(streamTopic(chatId)) } : null;
  }

  /** A new leader commits what a dead one left streaming; it does not re-run it (that spends quota). */
  recover(): void {
    if (this.turns.recoverInterrupted().length > 0) this.deps.notify(false);
  }

  /**
   * Streams a started turn's reply from the relay, mirrors it to every tab, checkpoints it, and
   * commits it when it ends (finished, stopped or failed: never lost). Answers the turn's id, as
   * Send, Regenerate and Continue answer their tab.
   */
  stream(turn: StartedTurn): { turnId: string } {
    const { ctx } = this.deps;
    // A re-sent command finds its turn finished (or already streaming here): nothing more to do.
    if (this.live.has(turn.chatId) || this.turns.streamingTurn(turn.chatId)?.turnId !== turn.turnId) return { turnId: turn.turnId };
    const controller = new AbortController();
    const prefix = turn.prefix ?? '';
    const entry: LiveReply = { turn, controller, text: prefix, thinking: '', thoughtMs: null, held: '', burst: false };
    this.live.set(turn.chatId, entry);
    const topic = streamTopic(turn.chatId);
    entry.done = (async () => {
      let result: NarrationResult;
      let report: PromptReport | undefined;
      try {
        const stored = readSettings(ctx.db);
        const sampler = samplerFor(ctx.db, turn.chatId);
        // The model's own context sizes the budget where its server says it, unless the player chose
        // not; its family's tokenizer counts, and an exact count leaves a smaller margin.
        const { count, family, countedWith, context } = await this.countingFor(turn.model, stored.budgetFromModel);
        const exact = isExactCount(countedWith);
        const settings = context ? { ...stored, narrativeBudget: budgetFromContext(context, sampler.maxTokens, exact) } : stored;
        // An exact count adds the template's own framing; an estimate keeps its padded rule.
        const framing = exact && family ? FRAMING[family] : FRAMING.cl100k;
        const prompt = narratorPrompt(ctx.db, turn.chatId, turn.startedSeq, settings, count, 'reply', framing);
        // Where the reply is cut if it runs on into someone else's line, and the label it may start with.
        const cast = castOf(ctx.db, turn.chatId);
        const others = (cast?.present ?? []).filter((m) => m.ref !== 'you' && m.ref !== turn.speaker).map((m) => m.name);
        const stopAt = stopStringsFor({ player: cast?.nameOf('you') ?? '', others, ownStops: settings.stopStrings });
        report = { ...prompt.report, ...(context ? { contextLength: context } : {}), ...(countedWith ? { countedWith, tokenizerFamily: family } : {}) };
        const narrated = await narrate({
          llm: this.deps.llm,
          messages: prefix ? withContinuation(prompt.messages, prefix) : prompt.messages,
          model: turn.model,
          maxTokens: sampler.maxTokens,
          sampling: sampler,
          signal: controller.signal,
          onDelta: (delta) => {
            // Tabs hold the reply so far (a continued reply's earlier text included) and add deltas;
            // the first delta of a continuation carries the space that joins it to the earlier text.
            const first = entry.text.length === prefix.length && entry.held === '';
            const piece = first ? joinContinuation(prefix, delta).slice(prefix.length) : delta;
            if (piece) this.mirror(entry, topic, piece);
          },
          stopAt,
          labels: prefix ? [] : [cast?.nameOf(turn.speaker) ?? ''],
          onThinking: (delta, moved) => this.mirrorThinking(entry, topic, delta, moved),
          onThinkingEnd: (ms) => {
            entry.thoughtMs = ms;
            this.sendHeld(entry, topic);
            this.deps.publish(topic, { turnId: turn.turnId, type: 'thought', ms });
          },
          onCheckpoint: (text, thinking) => this.turns.checkpoint(turn.chatId, turn.turnId, joinContinuation(prefix, text), thinking),
          checkpointMs: CHECKPOINT_MS,
          now: this.deps.now,
        });
        result = { ...narrated, text: joinContinuation(prefix, narrated.text) };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        result = { text: entry.text + entry.held, usage: null, truncated: true, reason: 'error', error: { code: 'unknown', message }, thinking: entry.thinking ? { text: entry.thinking, ms: entry.thoughtMs } : null };
      }
      this.sendHeld(entry, topic);
      this.live.delete(turn.chatId);
      this.turns.finishTurn(turn, result, report);
      this.deps.notify(false);
      this.deps.publish(topic, { turnId: turn.turnId, type: 'end' });
      // Where everyone answers, the next present bot takes its turn (a stopped or failed reply ends the round).
      if (!result.truncated) this.answerInTurn(turn.chatId);
    })();
    return { turnId: turn.turnId };
  }

  private answerInTurn(chatId: string): void {
    try {
      const next = nextToAnswer(this.deps.ctx.db, chatId);
      if (!next) return;
      this.stream(this.turns.beginTurn(chatId, '', undefined, next));
      this.deps.notify(false);
    } catch {
      // The chat went on another way meanwhile (a turn started from a tab, the chat deleted): nothing to chain.
    }
  }

  /**
   * Sends a delta to every tab. Chunks that arrive together (one network read holds many when the
   * model is fast or the network bunches them) go out as one message: the first at once, so the
   * first token waits for nothing, the rest of that burst together at the next task. Each tab then
   * lays the reply out once per burst instead of once per token.
   */
  private mirror(entry: LiveReply, topic: string, piece: string): void {
    if (entry.burst) {
      entry.held += piece;
      return;
    }
    this.publishDelta(entry, topic, piece);
    entry.burst = true;
    setTimeout(() => {
      entry.burst = false;
      this.sendHeld(entry, topic);
    });
  }

  /** Thinking goes to every tab after any reply text held before it, so each applies both in order. */
  private mirrorThinking(entry: LiveReply, topic: string, text: string, moved: boolean): void {
    this.sendHeld(entry, topic);
    if (moved) {
      // The reply so far was thinking: every tab moves it (the continuation's earlier text stays).
      const prefix = entry.turn.prefix ?? '';
      const moving = entry.text.slice(prefix.length);
      entry.thinking += moving;
      entry.text = prefix;
      this.deps.publish(topic, { turnId: entry.turn.turnId, type: 'thinking', text: moving, moved: true });
      return;
    }
    entry.thinking += text;
    this.deps.publish(topic, { turnId: entry.turn.turnId, type: 'thinking', text });
  }

  private sendHeld(entry: LiveReply, topic: string): void {
    if (entry.held === '') return;
    const text = entry.held;
    entry.held = '';
    this.publishDelta(entry, topic, text);
  }

  private publishDelta(entry: LiveReply, topic: string, text: string): void {
    entry.text += text;
    this.deps.publish(topic, { turnId: entry.turn.turnId, type: 'delta', text });
  }
}

/** What the narrator's calls run with: the leader's narrator and its token counter. */
export type NarratorEnv = CallEnv & { narrator: NarratorService; tokens: (family?: TokenizerFamily | null) => Promise<TokenCounter> };

/** Send, Regenerate and Continue: each writes the turn's start, then its reply streams. */
export const narratorCalls = {
  /** The player's line and the start of the narrator's reply, in one command; the reply streams after. */
  sendTurn: defineCommand({
    args: z.tuple([id, z.string()]),
    run(env: NarratorEnv, chatId: string, text: string): { turnId: string } {
      return env.narrator.stream(turnCommands(env).beginTurn(chatId, text, env.commandId));
    },
  }),
  regenerate: defineCommand({
    args: z.tuple([id]),
    rebuilds: true,
    run(env: NarratorEnv, chatId: string): { turnId: string } {
      return env.narrator.stream(turnCommands(env).regenerate(chatId, env.commandId));
    },
  }),
  /** "Let <name> speak": that bot, present in the scene, answers next (muted or not). */
  letSpeak: defineCommand({
    args: z.tuple([id, id]),
    run(env: NarratorEnv, chatId: string, botId: string): { turnId: string } {
      return env.narrator.stream(turnCommands(env).beginTurn(chatId, '', env.commandId, botId));
    },
  }),
  /** "Continue": the latest reply streams on from its last word, as part of the same reply. */
  continueReply: defineCommand({
    args: z.tuple([id]),
    rebuilds: true,
    run(env: NarratorEnv, chatId: string): { turnId: string } {
      return env.narrator.stream(turnCommands(env).continueReply(chatId, env.commandId));
    },
  }),
  /** Stop from any tab: the reply keeps what it has, marked truncated. */
  stopTurn: defineCommand({ args: z.tuple([id]), run: ({ narrator }: NarratorEnv, chatId: string) => narrator.stop(chatId) }),
  /** The text of the reply streaming in this chat right now, for a tab that opens mid-stream. */
  streamState: defineQuery({ args: z.tuple([id]), run: ({ narrator }: NarratorEnv, chatId: string) => narrator.state(chatId) }),

  /**
   * "Impersonate": the narrator model drafts the player's next message from the same story it would
   * answer, for the composer. Nothing is written: the player edits it, sends it or throws it away.
   */
  impersonate: defineQuery({
    args: z.tuple([id]),
    async run(env: NarratorEnv, chatId: string): Promise<{ text: string }> {
      const { db } = env;
      const settings = readSettings(db);
      const prompt = narratorPrompt(db, chatId, headSeq(db) + 1, settings, await env.tokens(), 'impersonate');
      const sampler = samplerFor(db, chatId);
      const completion = await env.llm.complete(prompt.messages, {
        model: settings.narrativeModel,
        maxTokens: Math.min(IMPERSONATE_TOKENS, sampler.maxTokens),
        temperature: sampler.temperature,
        topP: sampler.topP,
        minP: sampler.minP,
        repetitionPenalty: sampler.repetitionPenalty,
        priority: 'narrator',
      });
      return { text: draftOf(completion.text, personaOf(db, chatId)?.name ?? '') };
    },
  }),

  /**
   * The player started writing in this chat: what a first Send pays for is readied (the SDK, the
   * prompt's code and pages), read-only. A Send straight after the app opened met the SDK still
   * loading and the prompt's code cold, 100-130 ms before its request left against ~20 later.
   */
  prepareToSend: defineQuery({
    args: z.tuple([id]),
    async run(env: NarratorEnv, chatId: string): Promise<null> {
      await env.llm.warm?.();
      const settings = readSettings(env.db);
      // The model list and the family's tokenizer are asked for now too, so the Send waits for neither.
      const { count } = await env.narrator.countingFor(settings.narrativeModel, settings.budgetFromModel);
      narratorPrompt(env.db, chatId, headSeq(env.db) + 1, settings, count);
      return null;
    },
  }),
};
