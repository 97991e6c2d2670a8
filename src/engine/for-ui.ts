/**
 * What the UI takes from the engine, in one place: the client's type (from the call table), the
 * schemas its forms check before sending, the formatters and the read models' types. The UI
 * imports engine code from here and nowhere deeper (`for-ui-files.ts` for what it loads when
 * first needed), so the engine can move its files freely; `npm test` checks it (dependency-cruiser).
 */
// First: the schemas below are made with zod told not to probe for eval (the CSP refuses it).
import './zod-without-eval.ts';
export type { EngineClient, LiveQueryName, QueryName } from './api.ts';
export { importTopic, SEARCH_INDEX_TOPIC, streamTopic, SYNC_TOPIC, type SearchIndexProgress, type StreamMessage } from './leader/stream.ts';
export type { StreamState } from './leader/narrator.ts';
export type { SyncStatus } from './leader/sync-runner.ts';
export type { SyncProblem } from './sync/sync-error.ts';
export type { PurgeRescue } from './log/purge-rescue.ts';
export type { BackupSummary } from './log/backup-lines.ts';
export { botFields } from './events/authoring.ts';
export { TEXT_LIMITS } from './events/fields.ts';
export { editMarkKey, type EditTarget } from './events/edit-marks.ts';
export { kickoffSchema, type Kickoff } from './kickoff/schema.ts';
export { describeFictionTime, fictionMinutesBetween, storyTimeAgo, storyTimeSpan } from './fiction-time.ts';
export { closingMarker } from './turn/parse.ts';
export type { ChatState, Memory } from './queries/chat-state.ts';
export type { Recap } from './queries/recap.ts';
export type { ValueChangeEntry } from './queries/value-history.ts';
export type { FieldDef, FieldValue, TrackedField } from './state/fields.ts';
export { fieldKind, fieldText, FIELD_TYPES } from './state/fields.ts';
export { MATCH_END, MATCH_START, type SearchHit } from './queries/search.ts';
export type { TranscriptPage, TranscriptPlace, TranscriptTurn } from './queries/transcript.ts';
export type { RewindImpact, RewoundStretch } from './rewind/commands.ts';
export type { PromptReport } from './turn/prompt-report.ts';
export { TOKENIZER_NAMES, type CountedWith, type TokenizerFamily } from './turn/tokenizer-family.ts';
export type { Settings } from './settings/settings.ts';
export { DEFAULT_SAMPLER, samplerFields, type Sampler, type SamplerOverrides } from './settings/sampler.ts';
export type { ImportProgress } from './chat-import/import.ts';
export type { LorebookRef } from './lore/queries.ts';
export type { LoreEntry } from './lore/activation.ts';
export { THREAD_KINDS, type Thread } from './state/threads.ts';
