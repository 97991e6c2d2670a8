import type { EventDefinition } from './define.ts';
import { botAuthored, botReset, botResetUndone, defaultPersonaSet, personaRemoved, youAuthored } from './authoring.ts';
import { chatBackgroundSet, chatCreated, chatLanguageSet, chatPersonaChosen, chatSamplerSet, clockAdvanced } from './chat.ts';
import { classifierFailed } from './classifier.ts';
import { imageAdded } from './images.ts';
import { cardKept } from './cards.ts';
import { lorebookAdded, lorebookAttached, lorebookRemoved, loreEntrySaved } from '../lore/events.ts';
import { botDeleted, botRestored, chatDeleted, chatRestored, purged } from './deletion.ts';
import { sceneSummarized, turnAnalyzed } from './analysis.ts';
import { edgeSummaryRewritten, edgeUpdate } from './edges.ts';
import { manualEdit, manualEditUndone } from './manual-edit.ts';
import { memoryPinChanged, memorySignificanceSet, memorySummaryRewritten, memoryWritten } from './memories.ts';
import { chatRewound, rewindUndone } from './rewind.ts';
import { settingsChanged } from '../settings/settings.ts';
import { assistantTurn, assistantTurnStarted, replyContinued, replyVersionChosen, turnEdited, turnHidden, userTurn } from './turns.ts';
import { activityChange, sceneClosed, sceneOpened } from './world.ts';
import { TRACKED_EVENTS } from '../state/tracked-values.ts';
import { changeUndone } from './value-changes.ts';
import { promptTextKept } from './prompt-texts.ts';

/** Every event kind the log may hold. A kind is never removed or renamed: old logs must replay. */
export const EVENT_DEFINITIONS = [
  youAuthored,
  defaultPersonaSet,
  personaRemoved,
  botAuthored,
  botReset,
  chatCreated,
  clockAdvanced,
  activityChange,
  sceneOpened,
  sceneClosed,
  edgeUpdate,
  edgeSummaryRewritten,
  memoryWritten,
  memorySignificanceSet,
  memoryPinChanged,
  memorySummaryRewritten,
  userTurn,
  assistantTurnStarted,
  assistantTurn,
  manualEdit,
  classifierFailed,
  chatRewound,
  rewindUndone,
  settingsChanged,
  turnAnalyzed,
  sceneSummarized,
  replyVersionChosen,
  turnEdited,
  turnHidden,
  replyContinued,
  botResetUndone,
  manualEditUndone,
  chatDeleted,
  chatRestored,
  botDeleted,
  botRestored,
  purged,
  chatSamplerSet,
  chatLanguageSet,
  chatPersonaChosen,
  imageAdded,
  chatBackgroundSet,
  cardKept,
  lorebookAdded,
  loreEntrySaved,
  lorebookAttached,
  lorebookRemoved,
  changeUndone,
  promptTextKept,
  ...TRACKED_EVENTS,
] as const;

export type EventKind = (typeof EVENT_DEFINITIONS)[number]['kind'];

const byKind = new Map<string, EventDefinition>(EVENT_DEFINITIONS.map((d) => [d.kind, d as unknown as EventDefinition]));

export function definitionOf(kind: string): EventDefinition | undefined {
  return byKind.get(kind);
}

export { CHAT_COLUMN, chatKeyOf, chatRefOf, columnAsText, columnFromText, PROJECTED_TABLES, storedTable, type ProjectedTable } from './tables.ts';
import { PROJECTED_TABLES } from './tables.ts';

// A table named in `writes` that is not projected would be a change no screen hears of.
for (const definition of EVENT_DEFINITIONS) {
  const unknown = definition.writes.filter((table) => !PROJECTED_TABLES.includes(table as never));
  if (unknown.length) throw new Error(`${definition.kind} writes ${unknown.join(', ')}, which is not a projected table`);
}

/**
 * The tables an event of this kind can change: what its projection declares, plus `chats` for
 * any chat event (its last_seq moves). Change notices are built from this.
 */
export function tablesWrittenBy(kind: string, inChat: boolean): readonly string[] {
  const writes = definitionOf(kind)?.writes ?? PROJECTED_TABLES;
  return inChat && !writes.includes('chats') ? [...writes, 'chats'] : writes;
}

/** Global kinds that reach into chat rows, and so are replayed when one chat is rebuilt. */
export const KINDS_REACHING_CHATS = EVENT_DEFINITIONS.filter((d) => 'applyToChat' in d).map((d) => d.kind);
