import { followedReply } from '../../src/engine/turn/followed-reply.ts';
import fc from 'fast-check';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from './engine.ts';
import type { EventDraft } from '../../src/engine/log/draft.ts';
import { draft } from './fixtures.ts';

/**
 * Random stories for the property tests: ops carry small numbers that the interpreter maps onto
 * whatever exists at that point, so every generated sequence is valid.
 */

const FACTS = ['has a scar', 'Fears water.', 'fears water', 'owes Mira money', 'can read maps'];
const TIMES = ['1890-05-01T20:00:00', '1890-05-02T08:30:00', '1891-01-01T00:00:00'];
const small = fc.nat(7);

const weighted = <T>(weight: number, arbitrary: fc.Arbitrary<T>) => ({ weight, arbitrary });
export const op = fc.oneof(
  fc.record({ t: fc.constant('you' as const), name: fc.constantFrom('Ada', 'Bo', 'Cy') }),
  fc.record({ t: fc.constant('bot' as const), i: small, name: fc.constantFrom('Mira', 'Tam', 'Ro') }),
  fc.record({ t: fc.constant('reset' as const), i: small }),
  fc.record({ t: fc.constant('chat' as const), i: small }),
  fc.record({ t: fc.constant('container' as const), c: small }),
  fc.record({ t: fc.constant('activity' as const), c: small, who: small, posture: fc.constantFrom('sitting', 'standing') }),
  fc.record({ t: fc.constant('sceneOpen' as const), c: small }),
  fc.record({ t: fc.constant('sceneClose' as const), c: small, s: fc.nat(3) }),
  fc.record({
    t: fc.constant('edge' as const),
    c: small,
    src: small,
    dst: small,
    a: fc.integer({ min: -60, max: 60 }),
    tr: fc.integer({ min: -60, max: 60 }),
    facts: fc.subarray(FACTS, { maxLength: 3 }),
  }),
  fc.record({ t: fc.constant('edgeSummary' as const), c: small, src: small, dst: small }),
  fc.record({ t: fc.constant('memory' as const), c: small, s: fc.nat(3), pin: fc.boolean(), w: fc.nat(7) }),
  fc.record({ t: fc.constant('memoryChange' as const), c: small, m: small, which: fc.nat(2), v: fc.nat(3) }),
  fc.record({ t: fc.constant('clock' as const), c: small, time: fc.constantFrom(...TIMES) }),
  fc.record({ t: fc.constant('thread' as const), c: small, kind: fc.constantFrom('quest', 'secret', 'question') }),
  fc.record({ t: fc.constant('item' as const), c: small, k: small, move: fc.boolean(), gone: fc.boolean() }),
  fc.record({ t: fc.constant('field' as const), c: small, k: small, define: fc.boolean(), refuse: fc.boolean() }),
  weighted(3, fc.record({ t: fc.constant('userTurn' as const), c: small })),
  weighted(6, fc.record({ t: fc.constant('assistant' as const), c: small, finish: fc.boolean(), stop: fc.boolean(), analyse: fc.boolean() })),
  fc.record({ t: fc.constant('edit' as const), c: small, which: fc.nat(3) }),
  fc.record({ t: fc.constant('failure' as const), c: small, global: fc.boolean() }),
  weighted(3, fc.record({ t: fc.constant('regenerate' as const), c: small, k: small })),
  weighted(2, fc.record({ t: fc.constant('regenerateLatest' as const), c: small, finish: fc.boolean() })),
  weighted(2, fc.record({ t: fc.constant('swipe' as const), c: small, k: small })),
  weighted(2, fc.record({ t: fc.constant('turnEdit' as const), c: small, k: small, reanalyse: fc.boolean() })),
  fc.record({ t: fc.constant('turnHide' as const), c: small, k: small, hidden: fc.boolean() }),
  fc.record({ t: fc.constant('continue' as const), c: small, k: small }),
  fc.record({ t: fc.constant('resetUndo' as const), i: small }),
  fc.record({ t: fc.constant('editUndo' as const), c: small, k: small }),
  weighted(4, fc.record({ t: fc.constant('changeUndo' as const), c: small, k: small })),
  weighted(2, fc.record({ t: fc.constant('rewind' as const), c: small, k: small })),
  weighted(2, fc.record({ t: fc.constant('undo' as const), c: small })),
  weighted(3, fc.record({ t: fc.constant('branch' as const), c: small, k: small })),
  fc.record({ t: fc.constant('prune' as const) }),
  fc.record({ t: fc.constant('deletion' as const), c: small, restore: fc.boolean() }),
  fc.record({ t: fc.constant('botDeletion' as const), i: small, restore: fc.boolean() }),
  fc.record({ t: fc.constant('purge' as const), c: small }),
  fc.record({ t: fc.constant('botPurge' as const), i: small }),
);
export type Op = typeof op extends fc.Arbitrary<infer T> ? T : never;

/** Every story starts with someone to play and somewhere to play it; the rest is random. */
export const story = fc
  .array(op, { minLength: 5, maxLength: 80 })
  .map((ops): Op[] => [{ t: 'you', name: 'Ada' }, { t: 'bot', i: 0, name: 'Mira' }, { t: 'chat', i: 0 }, ...ops]);

interface ChatModel {
  id: string;
  bot: string;
}

/**
 * Replays generated ops against one engine, keeping just enough of a model to make valid drafts.
 * `known`: starts from the bots and chats already in the database (another device's, merged in).
 */
export function interpret(engine: Engine, db: Db, ops: readonly Op[], options: { known?: boolean } = {}) {
  const bots: string[] = options.known ? db.all<{ id: string }>('SELECT id FROM bots ORDER BY id').map((b) => b.id) : [];
  const chats: ChatModel[] = options.known ? db.all<ChatModel>('SELECT id, bot_id AS bot FROM chats ORDER BY id') : [];
  const pick = <T>(list: readonly T[], i: number): T | undefined => (list.length ? list[i % list.length] : undefined);
  const alive = (table: string, column: string, chatId: string) =>
    db.all<{ v: string }>(`SELECT ${column} AS v FROM ${table} WHERE chat_id = ? ORDER BY 1`, [chatId]).map((r) => r.v);
  const entities = (c: ChatModel) => ['you', c.bot, ...bots.filter((b) => b !== c.bot).slice(0, 1)];
  const chatExists = (c: ChatModel) => db.get('SELECT 1 AS x FROM chats WHERE id = ?', [c.id]) !== undefined;
  const newId = () => engine.newId();

  for (const o of ops) {
    if (o.t === 'you') {
      engine.append([draft.you({ name: o.name })]);
      continue;
    }
    if (o.t === 'bot') {
      const existing = pick(bots, o.i);
      const id = existing && o.i % 2 === 0 ? existing : newId();
      if (id !== existing) bots.push(id);
      engine.append([draft.bot(id, { name: o.name })]);
      continue;
    }
    if (o.t === 'reset') {
      const id = pick(bots, o.i);
      if (id) engine.append([{ kind: 'bot_reset', payload: { botId: id } }]);
      continue;
    }
    if (o.t === 'resetUndo') {
      const resets = db.all<{ id: string }>("SELECT id FROM events WHERE kind = 'bot_reset' ORDER BY event_key");
      const reset = pick(resets, o.i);
      if (reset) engine.append([{ kind: 'bot_reset_undone', payload: { reset: reset.id } }]);
      continue;
    }
    if (o.t === 'botDeletion') {
      const id = pick(bots, o.i);
      if (id && db.get('SELECT 1 AS x FROM bots WHERE id = ?', [id])) (o.restore ? engine.restoreBot : engine.deleteBot)(id);
      continue;
    }
    if (o.t === 'botPurge') {
      const id = pick(bots, o.i);
      if (id && db.get('SELECT 1 AS x FROM bots WHERE id = ?', [id])) {
        engine.deleteBot(id);
        engine.purgeNow({ botId: id });
        // Gone for good: nothing names it again (the app offers no way to).
        bots.splice(bots.indexOf(id), 1);
      }
      continue;
    }
    if (o.t === 'prune') {
      engine.pruneJournal();
      continue;
    }
    if (o.t === 'chat') {
      const bot = pick(bots, o.i);
      if (!bot) continue;
      const chat = { id: newId(), bot };
      chats.push(chat);
      engine.append([draft.chat(chat.id, bot)]);
      continue;
    }
    const c = pick(chats, o.c);
    if (!c || !chatExists(c)) continue;
    const chatId = c.id;
    const drafts: EventDraft[] = [];
    switch (o.t) {
      case 'container':
        drafts.push({
          kind: 'container_created',
          chatId,
          payload: { containerId: newId(), name: 'Room', type: 'room', properties: { public: o.c % 2 === 0 }, parentId: pick(alive('containers', 'id', chatId), o.c) ?? null },
        });
        break;
      case 'activity':
        drafts.push({
          kind: 'activity_change',
          chatId,
          payload: {
            entity: pick(entities(c), o.who)!,
            containerId: pick(alive('containers', 'id', chatId), o.who) ?? null,
            slot: 'by the fire',
            posture: o.posture,
            action: { verb: 'talking', interruptible: true, requiredAttention: 'low', expectedMinutes: null },
            attention: 'you',
            holding: [],
            status: 'present',
          },
        });
        break;
      case 'sceneOpen':
        drafts.push({ kind: 'scene_opened', chatId, payload: { sceneId: newId(), containerId: null, participants: entities(c), fictionTime: TIMES[0]! } });
        break;
      case 'sceneClose': {
        const scene = db.get<{ id: string }>('SELECT active_scene_id AS id FROM chat_state WHERE chat_id = ?', [chatId])?.id;
        if (scene) drafts.push({ kind: 'scene_closed', chatId, payload: { sceneId: scene, significance: o.s, reason: 'manual', fictionTime: TIMES[1]! } });
        const closed = pick(alive('scenes', 'id', chatId), o.s);
        if (closed) drafts.push({ kind: 'scene_summarized', chatId, payload: { sceneId: closed, ownerId: c.bot, ok: o.s > 0 } });
        break;
      }
      case 'edge':
      case 'edgeSummary': {
        const ents = entities(c);
        const src = pick(ents, o.src)!;
        const dst = pick(ents.filter((e) => e !== src), o.dst);
        if (!dst) break;
        drafts.push(
          o.t === 'edge'
            ? draft.edge(chatId, src, dst, { affinityDelta: o.a, trustDelta: o.tr, facts: o.facts, lastInteraction: o.a > 0 ? TIMES[0]! : null })
            : { kind: 'edge_summary_rewritten', chatId, payload: { source: src, target: dst, summary: `summary ${o.src}` } },
        );
        break;
      }
      case 'memory':
        drafts.push(
          draft.memory(chatId, newId(), c.bot, {
            summary: `memory ${o.s} of ${o.w}`,
            significance: o.s,
            pinned: o.pin,
            autoPinned: o.s === 3,
            witness: { you: (o.w & 1) === 1, host: (o.w & 2) === 2, guest: (o.w & 4) === 4 },
          }),
        );
        break;
      case 'memoryChange': {
        const memoryId = pick(alive('memories', 'id', chatId), o.m);
        if (!memoryId) break;
        drafts.push(
          o.which === 0
            ? { kind: 'memory_significance_set', chatId, payload: { memoryId, significance: o.v } }
            : o.which === 1
              ? { kind: 'memory_pin_changed', chatId, payload: { memoryId, pinned: o.v > 1, auto: o.v === 3 } }
              : {
                  kind: 'memory_summary_rewritten',
                  chatId,
                  payload: { memoryId, summary: `rewritten ${o.v}`, absorbs: alive('memories', 'id', chatId).filter((id) => id !== memoryId).slice(0, o.v) },
                },
        );
        break;
      }
      case 'clock':
        drafts.push({ kind: 'clock_advanced', chatId, payload: { minutes: 30, fictionTime: o.time } });
        break;
      case 'item': {
        // Items: noted, then moved to another holder, changed in state or gone (by the analysis or the player alike).
        const known = db.all<{ id: string }>('SELECT id FROM items WHERE chat_id = ? ORDER BY id', [chatId]);
        const item = o.move ? pick(known, o.k) : undefined;
        if (item) drafts.push({ kind: 'item_changed', chatId, payload: { itemId: item.id, holder: o.k % 2 ? 'you' : '', state: `state ${o.k}`, ...(o.gone ? { gone: true } : {}) } });
        else drafts.push({ kind: 'item_noted', chatId, payload: { itemId: newId(), name: `item ${o.k}`, holder: o.k % 2 ? c.bot : '', where: `shelf ${o.c}`, state: '' } });
        break;
      }
      case 'field': {
        // Fields of the player's own: defined (or taken out), then set for a character or refused with a reason.
        const defined = db.all<{ id: string; per: string }>('SELECT id, per FROM field_defs WHERE chat_id = ? ORDER BY id', [chatId]);
        const field = o.define ? undefined : pick(defined, o.k);
        if (!field) {
          if (o.refuse && defined.length) drafts.push({ kind: 'field_removed', chatId, payload: { fieldId: defined[0]!.id } });
          else drafts.push({ kind: 'field_defined', chatId, payload: { field: { id: newId(), name: `Field ${o.k}`, about: '', type: 'number', per: o.k % 2 ? 'chat' : 'character', min: 0, max: 10 } } });
        } else {
          const owner = field.per === 'chat' ? '' : o.k % 2 ? 'you' : c.bot;
          drafts.push(o.refuse ? { kind: 'field_refused', chatId, payload: { fieldId: field.id, owner, value: '99', reason: 'out of range' } } : { kind: 'field_set', chatId, payload: { fieldId: field.id, owner, value: o.k } });
        }
        break;
      }
      case 'userTurn':
        // Caused as the commands cause it: by the reply the player read (issue 36, part 1).
        drafts.push({ ...draft.userTurn(chatId, newId(), `turn ${o.c}`), causeId: followedReply(db, chatId) });
        break;
      case 'thread':
        drafts.push({ kind: 'thread_opened', chatId, payload: { threadId: newId(), kind: o.kind, text: `${o.kind} ${o.c}`, fictionTime: TIMES[o.c % TIMES.length]! } });
        break;
      case 'assistant': {
        const turnId = newId();
        const [started] = engine.append([{ ...draft.assistantStarted(chatId, turnId, c.bot), causeId: lastShownTurn(db, chatId) }]);
        if (!o.finish) break;
        const [finished] = engine.append([
          {
            ...draft.assistantTurn(chatId, turnId, c.bot, `reply ${started!.seq}`, o.stop ? { truncated: true, reason: 'stopped', usage: null } : {}),
            causeId: started!.id,
          },
        ]);
        if (o.analyse) {
          engine.append([
            { ...draft.edge(chatId, c.bot, 'you', { affinityDelta: 5, facts: ['was answered'] }), causeId: finished!.id },
            { ...draft.memory(chatId, newId(), c.bot, { summary: `analysis of ${started!.seq}` }), causeId: finished!.id },
            { kind: 'clock_advanced', chatId, payload: { minutes: 5, fictionTime: TIMES[2]! }, causeId: finished!.id },
            // The analysis opens a thread and settles the oldest one still open.
            { kind: 'thread_opened', chatId, payload: { threadId: newId(), kind: 'promise', text: `promise of ${started!.seq}`, fictionTime: TIMES[2]! }, causeId: finished!.id },
            ...db
              .all<{ id: string }>("SELECT id FROM threads WHERE chat_id = ? AND status = 'open' ORDER BY opened_seq LIMIT 1", [chatId])
              .map((t) => ({ kind: 'thread_resolved', chatId, payload: { threadId: t.id, fictionTime: TIMES[2]! }, causeId: finished!.id }) as EventDraft),
            { kind: 'turn_analyzed', chatId, payload: { turnId, ok: true, model: 'm', significance: 1 }, causeId: finished!.id },
          ]);
        }
        break;
      }
      case 'edit': {
        const turn = pick(alive('transcript', 'turn_id', chatId), o.c);
        const options: EventDraft[] = [
          { kind: 'manual_edit', chatId, payload: { target: { type: 'chat_state' }, field: 'weather', prior: null, value: `weather ${o.c}` } },
          { kind: 'manual_edit', payload: { target: { type: 'bot', id: c.bot }, field: 'traits', prior: null, value: ['edited'] } },
          { kind: 'manual_edit', chatId, payload: { target: { type: 'edge', source: c.bot, target: 'you' }, field: 'affinity', prior: null, value: 77 } },
          { kind: 'manual_edit', chatId, payload: { target: { type: 'activity', entity: c.bot }, field: 'doing', prior: null, value: `mending ${o.c}` } },
          ...alive('memories', 'id', chatId).slice(0, 1).map((id) => ({ kind: 'manual_edit', chatId, payload: { target: { type: 'memory', id }, field: 'significance', prior: null, value: o.which } }) as EventDraft),
          ...(turn ? [{ kind: 'manual_edit', chatId, payload: { target: { type: 'turn', id: turn }, field: 'text', prior: null, value: 'edited text' } } as EventDraft] : []),
          ...alive('threads', 'id', chatId)
            .slice(0, 1)
            .map((id) => ({ kind: 'manual_edit', chatId, payload: { target: { type: 'thread', id }, field: o.which % 2 ? 'status' : 'text', prior: null, value: o.which % 2 ? 'resolved' : `thread edited ${o.c}` } }) as EventDraft),
        ];
        drafts.push(pick(options, o.which)!);
        break;
      }
      case 'failure':
        drafts.push({ kind: 'classifier_failed', chatId: o.global ? null : chatId, payload: { task: 'analysis', model: 'm', raw: '{', error: 'bad JSON', attempts: 2 } });
        break;
      case 'regenerate': {
        const turns = db.all<{ id: string }>(
          `SELECT id FROM events e WHERE chat_id = ? AND kind = 'assistant_turn_started'
             AND NOT EXISTS (SELECT 1 FROM visibility v WHERE v.seq = e.seq) ORDER BY id`,
          [chatId],
        );
        const old = pick(turns, o.k);
        if (!old) break;
        const retry = draft.assistantStarted(chatId, newId(), c.bot);
        const follows = db.get<{ cause_id: string | null }>('SELECT cause_id FROM events WHERE event_key = id_key(?)', [old.id])?.cause_id ?? null;
        engine.append([{ ...retry, payload: { ...retry.payload, regenerateOf: old.id }, causeId: follows } as typeof retry]);
        break;
      }
      case 'regenerateLatest': {
        // As the player's Regenerate: the latest shown reply, its new version where the old one stood.
        const latest = db.get<{ seq: number }>("SELECT seq FROM transcript WHERE chat_id = ? AND hidden = 0 AND role = 'assistant' ORDER BY seq DESC LIMIT 1", [chatId]);
        const old = latest && db.get<{ id: string; cause_id: string | null }>('SELECT id, cause_id FROM events WHERE seq = ?', [latest.seq]);
        if (!old || db.get("SELECT 1 AS x FROM transcript WHERE chat_id = ? AND status = 'streaming'", [chatId])) break;
        const turnId = newId();
        const retry = draft.assistantStarted(chatId, turnId, c.bot);
        const [started] = engine.append([{ ...retry, payload: { ...retry.payload, regenerateOf: old.id }, causeId: old.cause_id } as typeof retry]);
        if (o.finish) engine.append([{ ...draft.assistantTurn(chatId, turnId, c.bot, `again ${started!.seq}`), causeId: started!.id }]);
        break;
      }
      case 'swipe': {
        // Any version of any reply, shown or not, hidden or not: the marker must hold up everywhere.
        const versions = db.all<{ id: string }>("SELECT id FROM events WHERE chat_id = ? AND kind = 'assistant_turn_started' ORDER BY id", [chatId]);
        const version = pick(versions, o.k);
        if (version) drafts.push({ kind: 'reply_version_chosen', chatId, payload: { version: version.id } });
        break;
      }
      case 'turnEdit': {
        // Any turn, shown or not; a reply's edit may also supersede what its finished event caused.
        const turns = db.all<{ id: string; payload: string; kind: string }>(
          "SELECT id, payload, kind FROM events WHERE chat_id = ? AND kind IN ('user_turn', 'assistant_turn') ORDER BY id",
          [chatId],
        );
        const turn = pick(turns, o.k);
        if (!turn) break;
        const turnId = (JSON.parse(turn.payload) as { turnId: string }).turnId;
        const analysisOf = turn.kind === 'assistant_turn' && o.reanalyse ? { analysisOf: turn.id } : {};
        drafts.push({ kind: 'turn_edited', chatId, payload: { turnId, text: `edited ${o.k}`, segments: null, ...analysisOf } });
        break;
      }
      case 'continue': {
        const replies = db.all<{ id: string; payload: string }>("SELECT id, payload FROM events WHERE chat_id = ? AND kind = 'assistant_turn' ORDER BY id", [chatId]);
        const reply = pick(replies, o.k);
        if (reply) drafts.push({ kind: 'reply_continued', chatId, payload: { turnId: (JSON.parse(reply.payload) as { turnId: string }).turnId, analysisOf: reply.id } });
        break;
      }
      case 'editUndo': {
        const edits = db.all<{ id: string }>("SELECT id FROM events WHERE chat_id = ? AND kind = 'manual_edit' ORDER BY id", [chatId]);
        const edit = pick(edits, o.k);
        if (edit) drafts.push({ kind: 'manual_edit_undone', chatId, payload: { edit: edit.id } });
        break;
      }
      case 'changeUndo': {
        // "Undo this change": one change still in force, of any value, taken back alone.
        const changes = db.all<{ id: string; change: string }>(
          `SELECT e.id, v.target || ':' || v.field || CASE WHEN v.part = '' THEN '' ELSE ':' || v.part END AS change
           FROM value_changes v JOIN events e ON e.seq = v.seq WHERE v.chat_id = ? AND v.undone = 0 ORDER BY v.seq, v.target, v.field, v.part`,
          [chatId],
        );
        const change = pick(changes, o.k);
        if (change) drafts.push({ kind: 'change_undone', chatId, payload: { event: change.id, change: change.change } });
        break;
      }
      case 'turnHide': {
        const turnId = pick(alive('transcript', 'turn_id', chatId), o.k);
        if (turnId) drafts.push({ kind: 'turn_hidden', chatId, payload: { turnId, hidden: o.hidden } });
        break;
      }
      case 'rewind': {
        const created = db.get<{ created_seq: number }>('SELECT created_seq FROM chats WHERE id = ?', [chatId])!.created_seq;
        const later = db.all<{ seq: number }>(
          'SELECT seq FROM events e WHERE chat_id = ? AND seq > ? AND NOT EXISTS (SELECT 1 FROM visibility v WHERE v.seq = e.seq) ORDER BY seq',
          [chatId, created],
        );
        const from = pick(later, o.k);
        if (from) engine.rewind(chatId, from.seq);
        break;
      }
      case 'branch': {
        const seq = pick(alive('transcript', 'seq', chatId), o.k);
        if (!seq) break;
        // A player branches once the reply being written is done.
        for (const r of db.all<{ turn_id: string }>("SELECT turn_id FROM transcript WHERE chat_id = ? AND status = 'streaming'", [chatId])) {
          engine.append([draft.assistantTurn(chatId, r.turn_id, c.bot, 'finished before branching')]);
        }
        try {
          chats.push({ id: engine.branchChat(chatId, Number(seq)), bot: c.bot });
        } catch (error) {
          if (!/reset partway|not part of this chat/.test(String(error))) throw error;
        }
        break;
      }
      case 'deletion':
        (o.restore ? engine.restoreChat : engine.deleteChat)(chatId);
        break;
      case 'purge':
        engine.deleteChat(chatId);
        engine.purgeNow({ chatId });
        break;
      case 'undo':
        try {
          engine.undoRewind(chatId);
        } catch (error) {
          if (!/no rewind to undo/.test(String(error))) throw error;
        }
        break;
    }
    if (drafts.length) engine.append(drafts);
  }
}


/** What a reply answers, as `beginTurn` has it: the player's line shown last, else the reply before. */
function lastShownTurn(db: Db, chatId: string): string | null {
  const row = db.get<{ seq: number; role: string }>('SELECT seq, role FROM transcript WHERE chat_id = ? AND hidden = 0 ORDER BY seq DESC LIMIT 1', [chatId]);
  if (!row) return null;
  return row.role === 'user' ? (db.get<{ id: string }>('SELECT id FROM events WHERE seq = ?', [row.seq])?.id ?? null) : followedReply(db, chatId);
}
