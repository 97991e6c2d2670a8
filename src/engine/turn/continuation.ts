import type { ChatMessage } from '../llm/port.ts';

/**
 * "Continue" asks for more of a reply that already has text. Chat models start a fresh message
 * after an assistant turn, so the reply so far goes in as the assistant's own words and a short
 * instruction asks for what comes next, without repeating it.
 */
export const CONTINUE_INSTRUCTION = '[Continue your last reply from exactly where it stopped. Do not repeat any of it; write only what comes next.]';

export function withContinuation(messages: readonly ChatMessage[], prefix: string): ChatMessage[] {
  return [...messages, { role: 'assistant', content: prefix }, { role: 'user', content: CONTINUE_INSTRUCTION }];
}

/** The reply so far and what came next, as one text: a space between words, none before punctuation. */
export function joinContinuation(prefix: string, more: string): string {
  if (!more) return prefix;
  if (!prefix || /\s$/.test(prefix) || /^[\s,.;:!?'")\]…—-]/.test(more)) return prefix + more;
  return `${prefix} ${more}`;
}
