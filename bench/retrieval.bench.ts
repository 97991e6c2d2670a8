import { performance } from 'node:perf_hooks';
import type { Engine } from '../tests/support/engine.ts';
import type { EventDraft } from '../src/engine/log/draft.ts';
import type { LlmClient } from '../src/engine/llm/port.ts';
import { loadTokenCounter } from '../src/engine/turn/tokens.ts';
import { draft, kickoffInput } from '../tests/support/fixtures.ts';
import { openTestEngine } from '../tests/support/sqlite.ts';
import { fmt, median, printTable } from './table.ts';
import { describeFictionTime, fictionMinutesBetween } from '../src/engine/fiction-time.ts';
import { queryTerms } from '../src/engine/memory/retrieval.ts';
import { indexAllPendingMemories } from '../src/engine/queries/search-index.ts';
import { ASKED_AT, QUESTIONS, SESSIONS } from './long-conversation.data.ts';
import { CATEGORIES, LOCOMO_PATH, loadLocomo } from './locomo.ts';

const OBJECTS = 'compass locket ledger lantern dagger sextant map key letter ring flask spyglass journal coin amulet chart rope anchor bell candle'.split(' ');
const PLACES = 'cellar attic lighthouse chapel harbour mill orchard quarry tavern bridge granary boathouse forge library stable tower well garden crypt market'.split(' ');
const NAMES = 'Abernathy Blackwood Castellan Dunmore Everard Fairweather Grimshaw Hollis Ironside Jessop Kestrel Lockhart Marchbanks Northcote Osgood Penhaligon Quillfeather Ravenscroft Stroud Thackeray'.split(' ');
const FILLER = 'the wind turned cold and Mira laughed about the tide while gulls circled the mast and rain hammered the deck as the crew sang old songs of home'.split(' ');

/** A small deterministic PRNG, so every run plants the same story. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

interface Fact {
  object: string;
  place: string;
  text: string;
  witnessed: boolean;
  /** The story's clock when it was said, for a question that names only when. */
  when: string;
}

/**
 * A story of `turns` exchanges through the real pipeline (turns, then the analysis job with a
 * scripted classifier). Some turns plant a fact ("the ledger is hidden in the chapel"); during
 * some of those the host is away and a guest bot is present, so only the guest witnesses them.
 * Every other turn is filler that mentions the same objects and places, as a story would.
 */
async function plantStory(engine: Engine, turns: number) {
  const random = rng(7);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const host = engine.newId();
  const guest = engine.newId();
  engine.append([draft.you({ name: 'Ada' }), draft.bot(host, { name: 'Mira' }), draft.bot(guest, { name: 'Tam' })]);
  const chat = engine.startChat(host, kickoffInput({ fictionTime: '1890-05-01T08:00:00' }));
  const status = (entity: string, value: 'present' | 'away'): EventDraft => ({
    kind: 'activity_change',
    chatId: chat,
    payload: { entity, containerId: null, slot: '', posture: 'standing', action: { verb: 'talking', interruptible: true, requiredAttention: 'low', expectedMinutes: null }, attention: '', holding: [], status: value },
  });
  engine.append([status(guest, 'away')]);
  const count = await loadTokenCounter();
  const classifier: LlmClient = {
    complete: async (_messages, options) => ({
      text: JSON.stringify({ minutesPassed: 20, significance: random() < 0.1 ? 2 : random() < 0.5 ? 1 : 0, sceneEnd: 'none', newPlace: '', feelings: {} }),
      usage: null,
      model: options.model,
      finishReason: 'stop',
    }),
    stream: () => {
      throw new Error('not used');
    },
  };
  const facts: Fact[] = [];
  const used = new Set<string>();
  for (let i = 0; i < turns; i++) {
    const plant = i % 5 === 2;
    let user: string;
    let reply: string;
    let witnessed = true;
    if (plant) {
      let object: string;
      let place: string;
      do {
        object = pick(OBJECTS);
        place = pick(PLACES);
      } while (used.has(object + place));
      used.add(object + place);
      witnessed = facts.length % 2 === 0;
      if (!witnessed) engine.append([status(host, 'away'), status(guest, 'present')]);
      user = `"Listen carefully. I hid the ${object} in the ${place}, and nobody else may know."`;
      reply = `${witnessed ? 'Mira' : 'Tam'} nods slowly and repeats it under the breath: the ${object}, in the ${place}.`;
      facts.push({ object, place, text: `the ${object} in the ${place}`, witnessed, when: engine.chatState(chat)!.fictionTime });
    } else {
      const words = Array.from({ length: 14 }, () => pick(FILLER)).join(' ');
      user = `"Did you see the ${pick(OBJECTS)} near the ${pick(PLACES)}?" ${words}`;
      reply = `Mira shrugs. ${Array.from({ length: 30 }, () => pick(FILLER)).join(' ')} and the ${pick(PLACES)} fades behind.`;
    }
    const turn = engine.turns.beginTurn(chat, user);
    engine.turns.finishTurn(turn, { text: reply, usage: null, truncated: false, reason: null, error: null });
    for (const job of engine.analysis.pending(chat)) await engine.analysis.run(classifier, job, count);
    if (!witnessed) engine.append([status(host, 'present'), status(guest, 'away')]);
  }
  return { chat, host, guest, facts, now: engine.chatState(chat)!.fictionTime };
}

async function quality(turns: number) {
  const { engine, db } = await openTestEngine({ now: Date.now });
  const story = await plantStory(engine, turns);
  const k = engine.settings().retrievalK;
  let hits = 0;
  let looseHits = 0;
  let whenHits = 0;
  let leaks = 0;
  let promptLeaks = 0;
  const count = await loadTokenCounter();
  const witnessed = story.facts.filter((f) => f.witnessed);
  const unseen = story.facts.filter((f) => !f.witnessed);
  for (const fact of story.facts) {
    const query = `Mira, where did I hide the ${fact.object}? Was it the ${fact.place}?`;
    const found = engine.searchMemories({ ownerId: story.host, chatId: story.chat, role: 'host', query, k, now: story.now });
    leaks += found.filter((m) => m.ownerId !== story.host || !m.witness.host).length;
    if (fact.witnessed && found.some((m) => m.summary.includes(fact.text))) hits++;
    // A vaguer question naming only the object, which filler turns mention too.
    const loose = engine.searchMemories({ ownerId: story.host, chatId: story.chat, role: 'host', query: `What became of the ${fact.object}?`, k, now: story.now });
    leaks += loose.filter((m) => m.ownerId !== story.host || !m.witness.host).length;
    if (fact.witnessed && loose.some((m) => m.summary.includes(fact.text))) looseHits++;
    // Vaguer still: neither object nor place, only who and when ("what did Ada give you last week?").
    const vague = engine.searchMemories({ ownerId: story.host, chatId: story.chat, role: 'host', query: `What did Ada tell you on ${describeFictionTime(fact.when)}?`, k, now: story.now });
    leaks += vague.filter((m) => m.ownerId !== story.host || !m.witness.host).length;
    if (fact.witnessed && vague.some((m) => m.summary.includes(fact.text))) whenHits++;
    if (!fact.witnessed) {
      // End to end: the narrator's prompt for a turn asking about it must not contain it.
      const from = engine.headSeq() + 1;
      const turn = engine.turns.beginTurn(story.chat, query);
      const system = engine.narratorPrompt(story.chat, turn.startedSeq, count).messages[0]!.content;
      if (system.includes(fact.text)) promptLeaks++;
      engine.turns.finishTurn(turn, { text: 'Mira shrugs.', usage: null, truncated: false, reason: null, error: null });
      engine.rewind(story.chat, from); // the probe leaves the story as it was
    }
  }
  // "What became of the compass?" asks where it is now: of an object hidden several times, the
  // last hiding answers it (the per-fact count above cannot reach 100 % when one was hidden more
  // than k times).
  const objects = [...new Set(witnessed.map((f) => f.object))];
  let latestHits = 0;
  for (const object of objects) {
    const latest = witnessed.filter((f) => f.object === object).at(-1)!;
    const found = engine.searchMemories({ ownerId: story.host, chatId: story.chat, role: 'host', query: `What became of the ${object}?`, k, now: story.now });
    leaks += found.filter((m) => m.ownerId !== story.host || !m.witness.host).length;
    if (found.some((m) => m.summary.includes(latest.text))) latestHits++;
  }
  const ceiling = objects.reduce((sum, object) => sum + Math.min(k, witnessed.filter((f) => f.object === object).length), 0);
  const memories = db.get<{ n: number }>('SELECT count(*) AS n FROM memories')!.n;
  printTable(`Retrieval quality: ${turns}-turn story, real analysis pipeline, planted facts`, [
    ['memories in the chat (host + guest)', fmt(memories)],
    ['facts planted: witnessed by the host / not', `${witnessed.length} / ${unseen.length}`],
    [`recall@${k}, question naming object and place`, `${hits}/${witnessed.length} (${fmt((100 * hits) / Math.max(1, witnessed.length), 1)}%)`],
    [`recall@${k}, question naming the object only`, `${looseHits}/${witnessed.length} (${fmt((100 * looseHits) / Math.max(1, witnessed.length), 1)}%)`],
    [
      `  the most any ${k} answers can hold (an object hidden more than ${k} times has more answers than that)`,
      `${ceiling}/${witnessed.length} (${fmt((100 * ceiling) / Math.max(1, witnessed.length), 1)}%)`,
    ],
    [`recall@${k}, question naming the object only, its latest hiding (one question per object)`, `${latestHits}/${objects.length} (${fmt((100 * latestHits) / Math.max(1, objects.length), 1)}%)`],
    [`recall@${k}, question naming only who and when`, `${whenHits}/${witnessed.length} (${fmt((100 * whenHits) / Math.max(1, witnessed.length), 1)}%)`],
    ['unwitnessed memories returned by search (must be 0)', fmt(leaks)],
    ['unwitnessed facts in the narrator prompt (must be 0)', fmt(promptLeaks)],
  ]);
}

async function latency(total: number) {
  const { engine } = await openTestEngine({ now: Date.now });
  const bot = engine.newId();
  const chat = engine.newId();
  engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
  const random = rng(11);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const planted: { name: string; object: string }[] = [];
  const started = performance.now();
  for (let i = 0; i < total; i += 1_000) {
    const drafts: EventDraft[] = [];
    for (let j = i; j < i + 1_000; j++) {
      // Every 5,000th memory a fact naming someone no other memory names, from the first day on.
      const name = j % 5_000 === 17 ? NAMES[planted.length] : undefined;
      if (name) planted.push({ name, object: pick(OBJECTS) });
      const text = name
        ? `Ada gave the ${planted.at(-1)!.object} to Captain ${name} by the ${pick(PLACES)}; ${Array.from({ length: 10 }, () => pick(FILLER)).join(' ')}.`
        : `Ada mentioned the ${pick(OBJECTS)} by the ${pick(PLACES)}; ${Array.from({ length: 25 }, () => pick(FILLER)).join(' ')}.`;
      drafts.push(
        draft.memory(chat, engine.newId(), bot, {
          summary: text,
          significance: j % 7 === 0 ? 2 : 1,
          witness: { you: true, host: j % 10 !== 0, guest: false },
          fictionTime: `18${String(90 + Math.floor(j / 40_000)).padStart(2, '0')}-0${1 + (j % 9)}-1${j % 10}T12:00:00`,
        }),
      );
    }
    engine.append(drafts);
  }
  // The search index is filled after the writes (migration 0025), by the leader's background pass:
  // done here before the queries, as it would be between turns.
  while (engine.indexSearch() > 0);
  const loadSeconds = (performance.now() - started) / 1000;
  const times: number[] = [];
  let leaks = 0;
  for (let i = 0; i < 200; i++) {
    const query = `"Where is the ${pick(OBJECTS)}?" *looks toward the ${pick(PLACES)}* ${pick(FILLER)} ${pick(FILLER)}`;
    const t = performance.now();
    const found = engine.searchMemories({ ownerId: bot, chatId: chat, role: 'host', query, k: 4, now: '1892-12-31T00:00:00' });
    times.push(performance.now() - t);
    leaks += found.filter((m) => !m.witness.host).length;
  }
  times.sort((a, b) => a - b);
  // The search bounds what it scores when a question holds only common words; a question naming
  // someone rare must still reach back to the chat's first day.
  let plantedHits = 0;
  for (const fact of planted) {
    const found = engine.searchMemories({ ownerId: bot, chatId: chat, role: 'host', query: `What did Captain ${fact.name} get from me? The ${fact.object}?`, k: 4, now: '1892-12-31T00:00:00' });
    if (found.some((m) => m.summary.includes(`Captain ${fact.name} `))) plantedHits++;
  }
  printTable(`Retrieval latency: ${fmt(total)} memories of one bot in one chat (worst case)`, [
    ['memories written (append + FTS index)', `${fmt(loadSeconds, 1)} s`],
    ['memories returned that the host did not witness (10% of the corpus; must be 0)', fmt(leaks)],
    [`recall@4 of ${planted.length} facts spread from the first memory on, asked by a name only they hold`, `${plantedHits}/${planted.length}`],
    ['searchMemories, median / p95 / max of 200 queries', `${fmt(median(times), 2)} / ${fmt(times[Math.floor(times.length * 0.95)]!, 2)} / ${fmt(times.at(-1)!, 2)} ms`],
  ]);
}

const MINUTES_PER_EXCHANGE = 3;

interface PlayedExchange {
  /** When its session starts on the story's clock. */
  sessionStart: string;
  you: string;
  reply: string;
  /** What a model's analysis would add (empty: the text alone). */
  keywords: string[];
  /** The ids its memory answers for. */
  ids: string[];
}

/**
 * A conversation through the real pipeline: each exchange a turn, each turn analysed by a scripted
 * classifier that moves the clock to the session's start and gives the exchange's keywords.
 * Returns the memory each id's exchange left (an exchange that left none is absent).
 */
async function playExchanges(names: { you: string; bot: string }, exchanges: readonly PlayedExchange[]) {
  const { engine, db } = await openTestEngine({ now: Date.now });
  const bot = engine.newId();
  engine.append([draft.you({ name: names.you }), draft.bot(bot, { name: names.bot })]);
  const chat = engine.startChat(bot, kickoffInput({ fictionTime: exchanges[0]!.sessionStart }));
  const count = await loadTokenCounter();
  let next = { minutes: 0, keywords: [] as string[] };
  const classifier: LlmClient = {
    complete: async (_messages, options) => ({
      text: JSON.stringify({ minutesPassed: next.minutes, significance: 1, sceneEnd: 'none', newPlace: '', feelings: {}, ...(next.keywords.length > 0 ? { keywords: next.keywords } : {}) }),
      usage: null,
      model: options.model,
      finishReason: 'stop',
    }),
    stream: () => {
      throw new Error('not used');
    },
  };
  const ids = new Map<string, string>();
  let session = '';
  for (const exchange of exchanges) {
    const clock = engine.chatState(chat)!.fictionTime;
    const opens = exchange.sessionStart !== session;
    session = exchange.sessionStart;
    next = { minutes: opens ? Math.max(0, fictionMinutesBetween(clock, exchange.sessionStart)) + MINUTES_PER_EXCHANGE : MINUTES_PER_EXCHANGE, keywords: exchange.keywords };
    const before = db.get<{ n: number }>('SELECT count(*) AS n FROM memories WHERE chat_id = ? AND owner_key = id_key(?)', [chat, bot])!.n;
    const turn = engine.turns.beginTurn(chat, exchange.you);
    engine.turns.finishTurn(turn, { text: exchange.reply, usage: null, truncated: false, reason: null, error: null });
    for (const job of engine.analysis.pending(chat)) await engine.analysis.run(classifier, job, count);
    const memory = db.get<{ id: string; n: number }>(
      "SELECT id, (SELECT count(*) FROM memories WHERE chat_id = ?1 AND owner_key = id_key(?2)) AS n FROM memories WHERE chat_id = ?1 AND owner_key = id_key(?2) AND source = 'witnessed' ORDER BY created_seq DESC LIMIT 1",
      [chat, bot],
    );
    if (memory && memory.n > before) for (const id of exchange.ids) ids.set(id, memory.id);
  }
  return { engine, db, bot, chat, ids };
}

/** The own long conversation (bench/long-conversation.data.ts), with or without its keywords. */
function playConversation(enriched: boolean) {
  const exchanges = SESSIONS.flatMap((session, s) =>
    session.exchanges.map(([you, reply, keywords], e) => ({ sessionStart: session.start, you: `"${you}"`, reply: `"${reply}"`, keywords: enriched ? keywords.split(', ') : [], ids: [`s${s + 1}e${e + 1}`] })),
  );
  return playExchanges({ you: 'Ada', bot: 'Mira' }, exchanges);
}

type Ranking = (ask: string, k: number) => string[];

/** A question with the ids of what answers it, and the group it is reported in. */
interface Asked {
  ask: string;
  evidence: readonly string[];
  group: string;
}

/**
 * Plain bm25 over the memories' FTS index: every content word of the question, OR-ed, best first,
 * over the memory's own text (and keywords when `withKeywords`), never its neighbours' text.
 */
function plainBm25(db: import('../src/engine/db/port.ts').Db, chat: string, bot: string, withKeywords: boolean): Ranking {
  return (ask, k) => {
    indexAllPendingMemories(db);
    const terms = queryTerms(ask);
    if (terms.length === 0) return [];
    const or = terms.map((t) => `"${t}"`).join(' OR ');
    return db
      .all<{ id: string }>(
        `SELECT m.id FROM memories_fts JOIN memories m ON m.created_seq = memories_fts.rowid
         WHERE memories_fts MATCH ? AND m.owner_id = ? AND m.chat_id = ? AND m.witness_host = 1
         ORDER BY bm25(memories_fts) LIMIT ?`,
        [`${withKeywords ? '{summary keywords}' : 'summary'} : (${or})`, bot, chat, k],
      )
      .map((r) => r.id);
  };
}

/**
 * Mean share of each question's evidence found in the top k (evidence lines in one memory count
 * once; a question with more evidence than k counts as found in full once k of it are), over all
 * questions and by group.
 */
function evidenceRecall(questions: readonly Asked[], groups: readonly string[], ids: Map<string, string>, rank: Ranking, k: number): string {
  const shares = questions.map((q) => {
    const found = new Set(rank(q.ask, k));
    const evidence = [...new Set(q.evidence.map((e) => ids.get(e) ?? `missing ${e}`))];
    const hits = evidence.filter((memory) => found.has(memory)).length;
    return { group: q.group, share: hits / Math.min(k, evidence.length) };
  });
  const mean = (list: { share: number }[]) => fmt((100 * list.reduce((sum, x) => sum + x.share, 0)) / Math.max(1, list.length), 1);
  return `${mean(shares)} % (${groups.map((group) => mean(shares.filter((s) => s.group === group))).join(' / ')})`;
}

/**
 * Evidence recall on a long multi-session conversation (bench/long-conversation.data.ts): questions
 * in other words than the story used, about two things at once, or about when. Our ranking beside
 * plain bm25 over the same memories, without the analysis's keywords and with them.
 */
async function longConversationRecall() {
  const rows: [string, string][] = [];
  const kinds = ['other words', 'two things', 'when'];
  for (const enriched of [false, true]) {
    const { engine, db, bot, chat, ids } = await playConversation(enriched);
    // A whole evening as evidence ("s9") is each of its exchanges.
    const questions = QUESTIONS.map((q) => ({
      ask: q.ask,
      group: q.kind,
      evidence: q.evidence.flatMap((e) => (e.includes('e') ? [e] : [...ids.keys()].filter((id) => id.startsWith(`${e}e`)))),
    }));
    const ours: Ranking = (ask, k) => engine.searchMemories({ ownerId: bot, chatId: chat, role: 'host', query: ask, k, now: ASKED_AT }).map((m) => m.id);
    const label = enriched ? 'with keywords' : 'text only';
    const rankings: [string, Ranking][] = [
      [`plain bm25, ${label}`, plainBm25(db, chat, bot, enriched)],
      [`searchMemories, ${label}`, ours],
    ];
    for (const [name, rank] of rankings) rows.push([name, `@4 ${evidenceRecall(questions, kinds, ids, rank, 4)}   @10 ${evidenceRecall(questions, kinds, ids, rank, 10)}`]);
  }
  const exchanges = SESSIONS.reduce((n, s) => n + s.exchanges.length, 0);
  printTable(
    `Evidence recall on a long conversation: ${SESSIONS.length} sessions, ${exchanges} exchanges, ${QUESTIONS.length} questions (all (other words / two things / when))`,
    rows,
  );
}

/**
 * Evidence recall on LoCoMo's conversations (bench/locomo.ts), which nobody wrote for this bench:
 * the same memories ranked by plain bm25 and by searchMemories, text only (no model adds keywords
 * here). Skipped, with where to put the file, when it is not there.
 */
async function locomoRecall() {
  const conversations = loadLocomo();
  if (!conversations) {
    console.log(`\nLoCoMo recall: skipped, ${LOCOMO_PATH} is not there (see bench/locomo.ts for where to get it).\n`);
    return;
  }
  const groups = Object.values(CATEGORIES);
  const all: Record<string, { questions: Asked[]; ids: Map<string, string>; rank: Ranking }[]> = { 'plain bm25': [], searchMemories: [] };
  let exchanges = 0;
  for (const [n, conversation] of conversations.entries()) {
    const played = await playExchanges({ you: conversation.player, bot: conversation.bot }, conversation.exchanges.map((e) => ({ ...e, keywords: [] })));
    exchanges += conversation.exchanges.length;
    // Ids are per conversation: prefixed so one table can hold them all.
    const ids = new Map([...played.ids].map(([id, memory]) => [`${n}/${id}`, memory]));
    const questions = conversation.questions.map((q) => ({ ask: q.ask, group: CATEGORIES[q.category]!, evidence: q.evidence.map((e) => `${n}/${e}`) }));
    const asked = played.engine.chatState(played.chat)!.fictionTime;
    all['plain bm25']!.push({ questions, ids, rank: plainBm25(played.db, played.chat, played.bot, false) });
    all.searchMemories!.push({
      questions,
      ids,
      rank: (ask, k) => played.engine.searchMemories({ ownerId: played.bot, chatId: played.chat, role: 'host', query: ask, k, now: asked }).map((m) => m.id),
    });
  }
  const rows: [string, string][] = Object.entries(all).map(([name, parts]) => {
    // One ranking per conversation: each question is asked of its own conversation's memories.
    const questions = parts.flatMap((p, n) => p.questions.map((q) => ({ ...q, ask: `${n}\u0000${q.ask}` })));
    const ids = new Map(parts.flatMap((p) => [...p.ids]));
    const rank: Ranking = (ask, k) => {
      const [n, text] = ask.split('\u0000');
      return parts[Number(n)]!.rank(text!, k);
    };
    return [name, `@4 ${evidenceRecall(questions, groups, ids, rank, 4)}   @10 ${evidenceRecall(questions, groups, ids, rank, 10)}`];
  });
  const questionCount = conversations.reduce((sum, c) => sum + c.questions.length, 0);
  printTable(`Evidence recall on LoCoMo: ${conversations.length} conversation(s), ${exchanges} exchanges, ${questionCount} questions (all (${groups.join(' / ')}))`, rows);
}

/** Retrieval: does the bot recall what it saw (and nothing it did not), and how fast at scale. */
export async function benchRetrieval(): Promise<void> {
  await quality(300);
  await longConversationRecall();
  await locomoRecall();
  await latency(100_000);
}
