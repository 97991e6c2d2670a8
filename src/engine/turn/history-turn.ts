import { inCharacterText } from './parse.ts';
import type { Segment } from '../events/turns.ts';

/** What a story turn says to the narrator: a player's turn without its asides (OOC). */
export const historyText = (turn: { role: string; text: string; segments?: Segment[] | null }): string =>
  turn.role === 'user' ? inCharacterText(turn.segments ?? [{ type: 'narration', text: turn.text }]) : turn.text;

/** A story turn as "Why this reply?" names it: who spoke, and how it began. */
export const historyLabel = (speakerName: string, text: string): string => `${speakerName}: ${text.length > 60 ? `${text.slice(0, 60).trimEnd()}…` : text}`;
