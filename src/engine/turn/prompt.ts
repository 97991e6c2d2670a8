import type { ChatMessage } from '../llm/port.ts';
import { FRAMING, type Framing } from './tokenizer-family.ts';
import type { TokenCounter } from './tokens.ts';

/**
 * MUST is never trimmed (who is speaking, who you are, where and when we are, what you just did).
 * SHOULD gives way only past the hard budget; NICE (older story) gives way first, past the soft one.
 */
export type Tier = 'must' | 'should' | 'nice';

export interface PromptPart {
  tier: Tier;
  /** Tokens, when the caller already counted them. */
  tokens?: number;
  /** Names the part in the assembly report ("persona", "turn 12", "memory 3"). */
  label: string;
  /** Where it goes: the system prompt, or the chat history as a message. */
  slot: 'system' | 'history';
  role?: 'user' | 'assistant';
  text: string;
  /** Within a tier, lower is dropped first. History keeps story order regardless. */
  keep: number;
  /** The story turn a history part tells, so the report can name it without copying it. */
  turnId?: string;
}

export interface Budget {
  hard: number;
  soft: number;
}

export interface AssembledPrompt {
  messages: ChatMessage[];
  tokens: number;
  tokensByTier: Record<Tier, number>;
  /** Labels of the parts left out, in the order they were dropped. */
  dropped: string[];
  overHardBudget: boolean;
  /** Every part in prompt order, with its cost and whether it made it in: the inspector's list. */
  parts: { label: string; tier: Tier; slot: PromptPart['slot']; tokens: number; kept: boolean; text: string; turnId?: string }[];
}


/**
 * Fits the parts into the budget: drop NICE parts (lowest `keep` first) while over the soft budget,
 * then SHOULD parts while over the hard one. MUST parts always stay, even past the hard budget:
 * a prompt without them would be a different story, not a shorter one.
 */
export function assemblePrompt(parts: readonly PromptPart[], budget: Budget, count: TokenCounter, framing: Framing = FRAMING.cl100k): AssembledPrompt {
  // Each part costs its text and its framing: a message's, or its join into the system message.
  const framed = (part: PromptPart) => (part.slot === 'system' ? framing.perSystemPart : part.role === 'assistant' ? (framing.perReply ?? framing.perMessage) : framing.perMessage);
  const costed = parts.map((part, index) => ({ part, index, tokens: (part.tokens ?? count(part.text)) + framed(part) }));
  const kept = new Set(costed);
  let total = framing.perPrompt + costed.reduce((sum, c) => sum + c.tokens, 0);
  const dropped: string[] = [];
  const shed = (tier: Tier, limit: number) => {
    const candidates = costed.filter((c) => c.part.tier === tier).sort((a, b) => a.part.keep - b.part.keep || a.index - b.index);
    for (const candidate of candidates) {
      if (total <= limit) return;
      kept.delete(candidate);
      total -= candidate.tokens;
      dropped.push(candidate.part.label);
    }
  };
  shed('nice', budget.soft);
  shed('should', budget.hard);

  const inOrder = costed.filter((c) => kept.has(c));
  const system = inOrder.filter((c) => c.part.slot === 'system').map((c) => c.part.text);
  const history = inOrder.filter((c) => c.part.slot === 'history');
  const messages: ChatMessage[] = [
    { role: 'system', content: system.join('\n\n') },
    ...history.map((c) => ({ role: c.part.role ?? 'user', content: c.part.text })),
  ];
  const tokensByTier = { must: 0, should: 0, nice: 0 };
  for (const c of inOrder) tokensByTier[c.part.tier] += c.tokens;
  return {
    messages: mergeSameRole(messages),
    tokens: total,
    tokensByTier,
    dropped,
    overHardBudget: total > budget.hard,
    parts: costed.map((c) => ({
      label: c.part.label,
      tier: c.part.tier,
      slot: c.part.slot,
      tokens: c.tokens,
      kept: kept.has(c),
      text: c.part.text,
      ...(c.part.turnId ? { turnId: c.part.turnId } : {}),
    })),
  };
}

/** Chat templates want user and assistant to alternate; consecutive messages of one role are joined. */
function mergeSameRole(messages: ChatMessage[]): ChatMessage[] {
  const merged: ChatMessage[] = [];
  for (const message of messages) {
    const last = merged.at(-1);
    if (last && last.role === message.role && message.role !== 'system') last.content = `${last.content}\n\n${message.content}`;
    else merged.push({ ...message });
  }
  return merged;
}
