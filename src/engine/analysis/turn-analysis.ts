import { z } from 'zod';
import { storyLanguage } from '../queries/story-language.ts';
import { languageInstruction } from '../text/language.ts';
import type { Db } from '../db/port.ts';
import type { LogContext } from '../log/context.ts';
import { appendEvents } from '../log/append.ts';
import { indexFewWaitingMemories } from '../queries/search-index.ts';
import type { EventDraft } from '../log/draft.ts';
import { factKey } from '../events/edges.ts';
import { makeRoomForPin } from '../memory/pins.ts';
import type { Settings } from '../settings/settings.ts';
import { inCharacterText } from '../turn/parse.ts';
import type { Segment } from '../events/turns.ts';
import { segmentsOf } from '../turn/stored-segments.ts';
import { fitToTokens, type TokenCounter } from '../turn/tokens.ts';
import { castOf, type Cast } from './cast.ts';
import { addFictionMinutes, describeFictionTime } from '../fiction-time.ts';
import { nextScene } from './next-scene.ts';
import { idOfSeq } from '../log/visibility.ts';
import type { EntityRef } from '../events/fields.ts';
import { THREAD_KINDS, THREAD_TEXT, type ThreadKind } from '../state/threads.ts';
import { describeItem, ITEM_NAME, ITEM_TEXT } from '../state/items.ts';
import { chatFields, checkFieldValue, fieldKind, type FieldDef, type FieldValue } from '../state/fields.ts';
import { chatKeyOf } from '../events/tables.ts';

export const SCENE_END = ['none', 'place_changed', 'parting', 'time_skip'] as const;
export type SceneEnd = (typeof SCENE_END)[number];

/** Feelings move at most this far in one turn, whatever the model says. */
export const DELTA_LIMIT = 10;
/** What a turn of conversation is taken to last when the classifier could not say. */
export const DEFAULT_TURN_MINUTES = 2;
const MAX_MINUTES = 60 * 24 * 365;
const MAX_FACTS_PER_PAIR = 5;
const MEMORY_CHARS = 4_000;
const CONTEXT_TURNS = 4;

/** A directed pair among the present: how `source` feels about and what it knows of `target`. */
export interface Pair {
  key: string;
  source: string;
  target: string;
}

/**
 * What the classifier returns for one turn. The schema is lenient on purpose (any number, any
 * string): a delta of 15 or a 600-character fact is clamped or cut below rather than costing a
 * retry, since the model's judgement is still useful. The optional parts (keywords, each pair's
 * feelings, threads) are dropped alone when malformed; the core (time, significance, scene) must hold.
 */
export function analysisSchema(pairKeys: readonly string[], withFields = true) {
  const pair = z.object({
    affinityDelta: z.number().describe(`How much warmer (+) or colder (-) the first now feels toward the second, -${DELTA_LIMIT} to ${DELTA_LIMIT}; 0 if unchanged.`),
    trustDelta: z.number().describe(`How much more (+) or less (-) the first now trusts the second, -${DELTA_LIMIT} to ${DELTA_LIMIT}; 0 if unchanged.`),
    newFacts: z.array(z.string()).describe('Short facts the first learned about the second in this turn only; [] if none.'),
  });
  return z.object({
    minutesPassed: z.number().describe('In-fiction minutes this turn took: a few for talk, hours for a journey or a night.'),
    significance: z.number().describe('0 trivial, 1 ordinary, 2 notable (a revelation, a promise, a fight), 3 pivotal (changes things for good).'),
    sceneEnd: z.enum(SCENE_END).describe('"none" unless the turn clearly ends the scene: they moved elsewhere, someone parted, or time jumped ahead.'),
    newPlace: z.string().describe('Where they are now if sceneEnd is "place_changed", else "".'),
    keywords: z
      .array(z.string())
      .optional()
      .catch(undefined)
      .describe(
        'Up to 12 words or short phrases someone might use later to ask about this turn, especially ones it does not say: the people, places, objects and times it concerns, and plainer or more general words for what happened ("researching" → "looking into, finding out").',
      ),
    // One pair the model got wrong is dropped alone; the other pairs and the rest of the answer apply.
    feelings: z.object(Object.fromEntries(pairKeys.map((key) => [key, pair.optional().catch(undefined)]))),
    threads: z
      .object({
        opened: z
          .array(z.object({ kind: z.enum(THREAD_KINDS), text: z.string() }))
          .describe('Threads this turn opened that the story will owe an answer to: a promise made, a quest taken on, a secret hinted at, a question left unanswered; one short sentence each; [] if none.'),
        resolved: z.array(z.string()).describe('Labels of the open threads listed above (T1, T2…) that this turn settled; [] if none.'),
      })
      .optional()
      // A malformed threads part is dropped alone: the clock, feelings and memories still apply.
      .catch(undefined),
    items: z
      .object({
        new: z
          .array(z.object({ name: z.string(), holder: z.string(), where: z.string(), state: z.string() }))
          .describe('Objects that came into the story in this turn and matter to it (a key found, a letter handed over, a blade drawn): holder is the name of the present person who has it, or "" if nobody does; where and state in a few words; [] if none.'),
        changed: z
          .array(z.object({ item: z.string(), holder: z.string().optional(), where: z.string().optional(), state: z.string().optional(), gone: z.boolean().optional() }))
          .describe('Items listed above (I1, I2…) that changed hands, moved, changed state, or left the story (gone: true) in this turn, with only what changed; [] if none.'),
      })
      .optional()
      .catch(undefined),
    // Asked for only when the chat has fields of the player's own: the part costs tokens every reply.
    ...(withFields
      ? {
          fields: z
            .record(z.string(), z.unknown())
            .optional()
            .catch(undefined)
            .describe('The player\'s own fields listed above that this turn changed, by their label, each with its new value of the type shown; {} if none changed.'),
        }
      : {}),
  });
}
type RawAnalysis = z.infer<ReturnType<typeof analysisSchema>>;

export interface TurnAnalysis {
  minutes: number;
  significance: number;
  sceneEnd: SceneEnd;
  newPlace: string;
  /** Words to find the turn's memories by, distinct and short. */
  keywords: string[];
  edges: { source: EntityRef; target: EntityRef; affinityDelta: number; trustDelta: number; facts: string[] }[];
  /** Threads to open (new words only) and open ones (by id) to settle. */
  threads: { opened: { kind: ThreadKind; text: string }[]; resolved: string[] };
  /** The player's own fields the turn set (checked against their fields), and values their fields refused, with why. */
  fields: { set: { fieldId: string; owner: string; value: FieldValue }[]; refused: { fieldId: string; owner: string; value: string; reason: string }[] };
  /** Items new to the story, and known ones (by id) that changed: only what changed. */
  items: { noted: { name: string; holder: string; where: string; state: string }[]; changed: { itemId: string; holder?: string; where?: string; state?: string; gone?: boolean }[] };
}

export interface TurnToAnalyze {
  chatId: string;
  /** The assistant_turn event: every event the analysis writes is caused by it. */
  seq: number;
  /** Where the reply sits in the transcript (the event that started it): earlier turns come before. */
  replySeq: number;
  turnId: string;
  cast: Cast;
  pairs: Pair[];
  /** What happened, as a witness would remember it: the user's in-character words, then the reply. */
  memoryText: string;
  /** The chat's open threads as the classifier is shown them, labelled T1, T2…, oldest first. */
  openThreads: { label: string; id: string; kind: ThreadKind; text: string }[];
  /** The player's own fields as the classifier is shown them: one label per field and owner ("Hunger (Ada)", "Tension"). */
  fields: { label: string; fieldId: string; owner: string; def: FieldDef; current: FieldValue | undefined }[];
  /** The items still in the story as the classifier is shown them, labelled I1, I2…, most recently touched first. */
  items: { label: string; id: string; name: string; holder: string; where: string; state: string }[];
}

interface TranscriptRow {
  turn_id: string;
  seq: number;
  role: 'user' | 'assistant';
  text: string;
  segments: string | null;
  finished_seq: number | null;
  analyzed_seq: number | null;
}

const TRANSCRIPT_COLUMNS = 'turn_id, seq, role, text, segments, finished_seq, analyzed_seq';

const clamp = (value: number, low: number, high: number) => Math.min(high, Math.max(low, Number.isFinite(value) ? value : 0));
const round2 = (value: number) => Math.round(value * 100) / 100;

function pairsOf(cast: Cast): Pair[] {
  const label = (ref: string) => {
    const member = cast.members.find((m) => m.ref === ref)!;
    const clash = cast.members.some((m) => m.ref !== ref && m.name === member.name);
    return clash ? `${member.name} (${member.role})` : member.name;
  };
  return cast.present.flatMap((a) => cast.present.filter((b) => b.ref !== a.ref).map((b) => ({ key: `${label(a.ref)} -> ${label(b.ref)}`, source: a.ref, target: b.ref })));
}

const spoken = (row: TranscriptRow) =>
  row.role === 'user' ? inCharacterText(segmentsOf<Segment>(row.segments, row.text) ?? [{ type: 'narration', text: row.text }]) : row.text;

/** The reply at `seq` and what led to it, or undefined when it is gone (regenerated, rewound) or done. */
export function turnToAnalyze(db: Db, chatId: string, seq: number): TurnToAnalyze | undefined {
  // Found by its turn's id, which the event at `seq` (the reply's end) names: by `finished_seq`
  // alone, every row of the chat was read.
  const reply = db.get<TranscriptRow>(
    `SELECT ${TRANSCRIPT_COLUMNS} FROM transcript
     WHERE chat_id = ?1 AND turn_key = id_key((SELECT json_extract(payload, '$.turnId') FROM events WHERE seq = ?2)) AND finished_seq = ?2 AND role = 'assistant'`,
    [chatId, seq],
  );
  const cast = castOf(db, chatId);
  if (!reply || reply.analyzed_seq !== null || !cast) return undefined;
  const before = db.get<TranscriptRow>(`SELECT ${TRANSCRIPT_COLUMNS} FROM transcript WHERE chat_id = ? AND seq < ? AND hidden = 0 ORDER BY seq DESC LIMIT 1`, [chatId, reply.seq]);
  const said = before?.role === 'user' ? spoken(before) : '';
  const youSaid = said ? `${cast.nameOf('you')}: ${said.slice(0, 1_200)}\n\n` : '';
  return {
    chatId,
    seq,
    replySeq: reply.seq,
    turnId: reply.turn_id,
    cast,
    pairs: pairsOf(cast),
    memoryText: `${youSaid}${reply.text}`.slice(0, MEMORY_CHARS).trim() || '(a silent moment)',
    openThreads: db
      .all<{ id: string; kind: ThreadKind; text: string }>(
        `SELECT id, kind, text FROM threads WHERE chat_id = ? AND status = 'open' ORDER BY opened_seq LIMIT ${MAX_OPEN_THREADS_SHOWN}`,
        [chatId],
      )
      .map((t, i) => ({ label: `T${i + 1}`, ...t })),
    fields: chatFields(db, chatId).flatMap(({ def, values }) =>
      def.per === 'chat'
        ? [{ label: def.name, fieldId: def.id, owner: '', def, current: values[''] }]
        : cast.present.map((m) => ({ label: `${def.name} (${m.name})`, fieldId: def.id, owner: m.ref, def, current: values[m.ref] })),
    ),
    items: db
      .all<{ id: string; name: string; holder: string; place: string; state: string }>(
        `SELECT id, name, holder, place, state FROM items WHERE chat_id = ? AND gone = 0 ORDER BY updated_seq DESC, id LIMIT ${MAX_ITEMS_SHOWN}`,
        [chatId],
      )
      .map((item, i) => ({ label: `I${i + 1}`, id: item.id, name: item.name, holder: item.holder, where: item.place, state: item.state })),
  };
}

/** The classifier sees this many items at most (the most recently touched). */
const MAX_ITEMS_SHOWN = 30;
/** A turn brings this many new items at most. */
const MAX_ITEMS_NOTED = 4;

/** The classifier sees this many open threads at most (the oldest: they are the ones at risk of being forgotten). */
const MAX_OPEN_THREADS_SHOWN = 20;
/** A turn opens this many threads at most. */
const MAX_THREADS_OPENED = 3;

/** The name of the place the chat's active scene is in, if it has one. */
const placeOf = (db: Db, chatId: string) =>
  db.get<{ name: string }>(
    `SELECT c.name FROM chat_state s JOIN scenes sc ON sc.chat_id = s.chat_id AND sc.id = s.active_scene_id JOIN containers c ON c.chat_id = sc.chat_id AND c.id = sc.container_id WHERE s.chat_id = ?`,
    [chatId],
  )?.name;

/** The classifier's instructions and input for one turn, within its own token budget. */
const prefixed = (line: string) => (line ? `\n${line}` : '');

export function analysisPrompt(db: Db, turn: TurnToAnalyze, settings: Settings, count: TokenCounter): { system: string; user: string } {
  const { cast } = turn;
  const state = db.get<{ fiction_time: string; weather: string }>('SELECT fiction_time, weather FROM chat_state WHERE chat_id = ?', [turn.chatId]);
  const place = placeOf(db, turn.chatId);
  const people = cast.present.map((m) => `- ${m.name}${m.ref === 'you' ? " (the user's character)" : ''}`).join('\n');
  const away = cast.members.filter((m) => !m.present).map((m) => m.name);
  const system =
    `You keep the books of an interactive story. Read the latest turn and report what it changed.\n` +
    `Present (all of them witness the turn, even if silent):\n${people}\n` +
    (away.length ? `Not present: ${away.join(', ')}.\n` : '') +
    `It was ${state ? describeFictionTime(state.fiction_time) : 'unknown'}${place ? ` at ${place}` : ''}.\n` +
    `"feelings" has one entry per pair "A -> B": how A's affinity and trust toward B changed in this turn and what A newly learned about B. ` +
    `Most turns change little: use 0 when nothing changed, 1 to 3 for ordinary moments, up to ${DELTA_LIMIT} only for dramatic ones. ` +
    `Facts are short, concrete and new (a name, a secret, a preference, a promise), never a retelling of the turn.\n` +
    `"threads": what this turn left the story owing (a promise, a quest, a secret, an unanswered question), and which open threads it settled.` +
    (turn.openThreads.length ? `\nOpen threads:\n${turn.openThreads.map((t) => `${t.label} (${t.kind}): ${t.text}`).join('\n')}` : ' There are no open threads yet.') +
    `\n"items": objects that matter to the story, who has them, where they are and their state.` +
    (turn.items.length ? `\nItems:\n${turn.items.map((i) => `${i.label}: ${describeItem(i, cast.nameOf)}`).join('\n')}` : ' There are no items yet.') +
    (turn.fields.length
      ? `\n"fields": the player's own fields to keep. Answer only those this turn changed, by label, with a value of the type shown.\n${turn.fields
          .map((f) => `"${f.label}" (${fieldKind(f.def)})${f.def.about ? `: ${f.def.about}` : ''}. Now: ${f.current === undefined ? 'not set' : JSON.stringify(f.current)}`)
          .join('\n')}`
      : '') +
    prefixed(languageInstruction(storyLanguage(db, turn.chatId), 'every text you report (facts, keywords, threads, items, field values)'));
  // Room left for the story once the instructions and the schema (added by classify) are counted.
  const schemaTokens = count(JSON.stringify(z.toJSONSchema(analysisSchema(turn.pairs.map((p) => p.key), turn.fields.length > 0), { unrepresentable: 'any' })));
  let room = settings.classifierBudget - count(system) - schemaTokens - 120;
  const latest = fitToTokens(`Latest turn:\n${turn.memoryText}`, Math.max(200, Math.floor(room * 0.75)), count);
  room -= count(latest);
  // Turns before the host's last reset are history the story no longer carries.
  const earlier = db.all<TranscriptRow>(
    `SELECT ${TRANSCRIPT_COLUMNS} FROM transcript WHERE chat_id = ?1 AND seq < ?2 AND hidden = 0
       AND seq > coalesce((SELECT b.reset_seq FROM chats c JOIN bots b ON b.id = c.bot_id WHERE c.id = ?1), 0)
     ORDER BY seq DESC LIMIT ?3`,
    [turn.chatId, turn.replySeq, CONTEXT_TURNS + 1],
  );
  // The user turn the reply answers is already in "latest"; older turns give context, newest first.
  const context: string[] = [];
  for (const row of earlier.slice(earlier[0]?.role === 'user' ? 1 : 0)) {
    const line = `${row.role === 'user' ? cast.nameOf('you') : 'Narrator'}: ${spoken(row)}`;
    const fitted = fitToTokens(line, room, count, 'end');
    if (!fitted) break;
    context.unshift(fitted);
    room -= count(fitted);
    if (fitted !== line) break;
  }
  return { system, user: `${context.length ? `Earlier:\n${context.join('\n\n')}\n\n` : ''}${latest}` };
}

/** The model's answer made safe: deltas clamped, facts trimmed and new, unknown pairs ignored. */
export function normalizeAnalysis(raw: RawAnalysis, turn: TurnToAnalyze, known: (source: string, target: string) => Set<string>): TurnAnalysis {
  const edges = turn.pairs.map((pair) => {
    const entry = (raw.feelings as Record<string, RawAnalysis['feelings'][string]>)[pair.key];
    const seen = known(pair.source, pair.target);
    const facts: string[] = [];
    for (const fact of entry?.newFacts ?? []) {
      const text = fact.trim().slice(0, 500);
      const key = factKey(text);
      if (!key || seen.has(key)) continue;
      seen.add(key);
      facts.push(text);
      if (facts.length === MAX_FACTS_PER_PAIR) break;
    }
    return {
      source: pair.source,
      target: pair.target,
      affinityDelta: round2(clamp(entry?.affinityDelta ?? 0, -DELTA_LIMIT, DELTA_LIMIT)),
      trustDelta: round2(clamp(entry?.trustDelta ?? 0, -DELTA_LIMIT, DELTA_LIMIT)),
      facts,
    };
  });
  const sceneEnd = raw.sceneEnd === 'place_changed' && !raw.newPlace.trim() ? 'none' : raw.sceneEnd;
  // New threads in new words only (an open one said again is the same thread); settled ones by their label.
  const saidBefore = new Set(turn.openThreads.map((t) => threadKey(t.text)));
  const opened: TurnAnalysis['threads']['opened'] = [];
  for (const thread of raw.threads?.opened ?? []) {
    const text = thread.text.replace(/\s+/g, ' ').trim().slice(0, THREAD_TEXT);
    const key = threadKey(text);
    if (!key || saidBefore.has(key) || opened.length === MAX_THREADS_OPENED) continue;
    saidBefore.add(key);
    opened.push({ kind: thread.kind, text });
  }
  const byLabel = new Map(turn.openThreads.map((t) => [t.label.toLowerCase(), t.id]));
  const resolved = [...new Set((raw.threads?.resolved ?? []).map((label) => byLabel.get(label.trim().toLowerCase())).filter((id): id is string => id !== undefined))];
  return {
    fields: normalizeFields(raw.fields, turn),
    items: normalizeItems(raw.items, turn),
    minutes: Math.round(clamp(raw.minutesPassed, 0, MAX_MINUTES)),
    significance: Math.round(clamp(raw.significance, 0, 3)),
    sceneEnd,
    newPlace: sceneEnd === 'place_changed' ? raw.newPlace.trim().slice(0, 120) : '',
    keywords: cleanKeywords(raw.keywords ?? []),
    edges,
    threads: { opened, resolved },
  };
}

/** Each labelled field's value checked against its field: kept when it changes the value, refused with the field's reason when it breaks it. */
function normalizeFields(raw: unknown, turn: TurnToAnalyze): TurnAnalysis['fields'] {
  const answered = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const byLabel = new Map(turn.fields.map((f) => [f.label.toLowerCase(), f]));
  const out: TurnAnalysis['fields'] = { set: [], refused: [] };
  for (const [label, value] of Object.entries(answered)) {
    const field = byLabel.get(label.trim().toLowerCase());
    if (!field || value === null || value === undefined) continue;
    const checked = checkFieldValue(field.def, value);
    if (!checked.ok) out.refused.push({ fieldId: field.fieldId, owner: field.owner, value: (typeof value === 'string' ? value : JSON.stringify(value)).slice(0, 300), reason: checked.reason.slice(0, 300) });
    else if (JSON.stringify(checked.value) !== JSON.stringify(field.current)) out.set.push({ fieldId: field.fieldId, owner: field.owner, value: checked.value });
  }
  return out;
}

/** New items in new names only, each holder a present person by name (or nobody); changes by label, only what differs. */
function normalizeItems(raw: RawAnalysis['items'], turn: TurnToAnalyze): TurnAnalysis['items'] {
  const refOf = (name: string | undefined): string | undefined => {
    if (name === undefined) return undefined;
    const wanted = name.trim().toLowerCase();
    if (!wanted || wanted === 'nobody' || wanted === 'none') return '';
    return turn.cast.members.find((m) => m.name.toLowerCase() === wanted)?.ref;
  };
  const text = (value: string | undefined, max: number) => value?.replace(/\s+/g, ' ').trim().slice(0, max);
  const known = new Set(turn.items.map((i) => `${i.holder}:${i.name.toLowerCase()}`));
  const noted: TurnAnalysis['items']['noted'] = [];
  for (const item of raw?.new ?? []) {
    const name = text(item.name, ITEM_NAME);
    const holder = refOf(item.holder) ?? '';
    if (!name || known.has(`${holder}:${name.toLowerCase()}`) || noted.length === MAX_ITEMS_NOTED) continue;
    known.add(`${holder}:${name.toLowerCase()}`);
    noted.push({ name, holder, where: text(item.where, ITEM_TEXT) ?? '', state: text(item.state, ITEM_TEXT) ?? '' });
  }
  const byLabel = new Map(turn.items.map((i) => [i.label.toLowerCase(), i]));
  const changed: TurnAnalysis['items']['changed'] = [];
  for (const change of raw?.changed ?? []) {
    const item = byLabel.get(change.item.trim().toLowerCase());
    if (!item || changed.some((c) => c.itemId === item.id)) continue;
    const next: TurnAnalysis['items']['changed'][number] = { itemId: item.id };
    const holder = refOf(change.holder);
    if (holder !== undefined && holder !== item.holder) next.holder = holder;
    const where = text(change.where, ITEM_TEXT);
    if (where !== undefined && where !== item.where) next.where = where;
    const state = text(change.state, ITEM_TEXT);
    if (state !== undefined && state !== item.state) next.state = state;
    if (change.gone === true) next.gone = true;
    if (Object.keys(next).length > 1) changed.push(next);
  }
  return { noted, changed };
}

/** A thread's words compared loosely: case, spaces and end punctuation aside. */
const threadKey = (text: string) => text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

const MAX_KEYWORDS = 16;
const KEYWORD_CHARS = 60;

/** Keywords as the index keeps them: one line each, trimmed, short, each once, at most 16. */
export function cleanKeywords(words: readonly string[]): string[] {
  const kept: string[] = [];
  const seen = new Set<string>();
  for (const word of words) {
    const text = word.replace(/[\s,]+/g, ' ').trim().slice(0, KEYWORD_CHARS);
    const key = text.toLowerCase();
    if (!text || seen.has(key)) continue;
    seen.add(key);
    kept.push(text);
    if (kept.length === MAX_KEYWORDS) break;
  }
  return kept;
}

/** What the analysis says when every model failed: a couple of minutes passed, nothing else changed. */
export const FALLBACK_ANALYSIS: RawAnalysis = { minutesPassed: DEFAULT_TURN_MINUTES, significance: 1, sceneEnd: 'none', newPlace: '', feelings: {} };

export function knownFacts(db: Db, chatId: string) {
  return (source: string, target: string) =>
    new Set(
      db
        .all<{ fact_key: string }>(`SELECT fact_key FROM edge_fact_rows WHERE chat = ${chatKeyOf('edge_facts', '?')} AND source = id_key(?) AND target = id_key(?)`, [chatId, source, target])
        .map((r) => r.fact_key),
    );
}

/**
 * Writes one turn's analysis: the clock, each pair's feelings and facts, a memory for every bot
 * that witnessed it (auto-pinned when pivotal, within the cap), a scene change on a hard signal,
 * and the turn_analyzed marker, all caused by the reply. Returns false, writing nothing, when the
 * reply is gone or already analysed: that check and the write are one transaction, so however many
 * runners race, one analysis lands.
 */
export function recordAnalysis(ctx: LogContext, chatId: string, seq: number, analysis: TurnAnalysis, meta: { ok: boolean; model: string | null }): boolean {
  const { db } = ctx;
  return db.transaction(() => {
    const turn = turnToAnalyze(db, chatId, seq);
    if (!turn) return false;
    const state = db.get<{ fiction_time: string; active_scene_id: string | null }>('SELECT fiction_time, active_scene_id FROM chat_state WHERE chat_id = ?', [chatId])!;
    const time = analysis.minutes > 0 ? addFictionMinutes(state.fiction_time, analysis.minutes) : state.fiction_time;
    const drafts: EventDraft[] = [];
    if (analysis.minutes > 0) drafts.push({ kind: 'clock_advanced', chatId, payload: { minutes: analysis.minutes, fictionTime: time } });
    const present = new Set(turn.cast.present.map((m) => m.ref));
    for (const edge of analysis.edges) {
      if (!present.has(edge.source) || !present.has(edge.target) || edge.source === edge.target) continue;
      drafts.push({ kind: 'edge_update', chatId, payload: { ...edge, lastInteraction: time } });
    }
    // Found later by the classifier's words, and by where it happened and who was there.
    const place = placeOf(db, chatId);
    const keywords = cleanKeywords([...analysis.keywords, ...(place ? [place] : []), ...turn.cast.present.map((m) => m.name)]).join(', ');
    for (const bot of turn.cast.witnessBots) {
      let pinned = analysis.significance === 3;
      if (pinned) {
        const room = makeRoomForPin(db, chatId, bot.ref);
        if (room) drafts.push(...room);
        else pinned = false;
      }
      drafts.push({
        kind: 'memory_written',
        chatId,
        payload: {
          memoryId: ctx.newId(),
          ownerId: bot.ref,
          sceneId: state.active_scene_id,
          summary: turn.memoryText,
          keywords,
          witness: turn.cast.witness,
          fictionTime: time,
          source: 'witnessed',
          reliability: 1,
          significance: analysis.significance,
          pinned,
          autoPinned: pinned,
        },
      });
    }
    for (const thread of analysis.threads.opened) drafts.push({ kind: 'thread_opened', chatId, payload: { threadId: ctx.newId(), kind: thread.kind, text: thread.text, fictionTime: time } });
    const stillOpen = new Set(turn.openThreads.map((t) => t.id));
    for (const set of analysis.fields.set) drafts.push({ kind: 'field_set', chatId, payload: set });
    for (const refused of analysis.fields.refused) drafts.push({ kind: 'field_refused', chatId, payload: refused });
    for (const item of analysis.items.noted) drafts.push({ kind: 'item_noted', chatId, payload: { itemId: ctx.newId(), ...item } });
    for (const change of analysis.items.changed) drafts.push({ kind: 'item_changed', chatId, payload: change });
    for (const threadId of analysis.threads.resolved) if (stillOpen.has(threadId)) drafts.push({ kind: 'thread_resolved', chatId, payload: { threadId, fictionTime: time } });
    if (analysis.sceneEnd !== 'none') {
      drafts.push(...nextScene(ctx, turn.cast, { reason: analysis.sceneEnd, significance: analysis.significance, fictionTime: time, newPlace: analysis.newPlace }));
    }
    drafts.push({ kind: 'turn_analyzed', chatId, payload: { turnId: turn.turnId, ok: meta.ok, model: meta.model, significance: analysis.significance } });
    appendEvents(ctx, drafts.map((d) => ({ ...d, causeId: idOfSeq(ctx.db, seq) ?? null })));
    // Searchable as soon as they are written, in this same commit.
    indexFewWaitingMemories(db);
    return true;
  });
}
