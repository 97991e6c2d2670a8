import type { Db } from '../db/port.ts';
import { addFictionMinutes, fictionMinutesBetween } from '../fiction-time.ts';
import { askedTime } from './query-time.ts';
import { indexAllPendingMemories } from '../queries/search-index.ts';
import { MEMORY_COLUMNS, toMemory, WITNESSED_BY, type ChatRole, type Memory, type MemoryRow } from './memory-row.ts';
import { isSearchWord, prefixOf, wordsOf } from '../text/search-text.ts';
import { chatKeyOf } from '../events/tables.ts';

export interface MemorySearch {
  ownerId: string;
  chatId: string;
  /** The role the owner plays in this chat: only memories with that witness flag are candidates. */
  role: ChatRole;
  /** Free text (the new user turn and the current scene); turned into an FTS5 query here. */
  query: string;
  k: number;
  /** The chat's clock now, for recency. */
  now: string;
}

export interface ScoredMemory extends Memory {
  score: number;
  /** Why it ranked where it did: the inspector shows these. */
  why: { relevance: number; recency: number; matched: string[] };
}

const STOP_WORDS = new Set(
  `a about above after again against all am an and any are as at be because been before being below between both but by can
  could did do does doing down during each few for from further had has have having he her here hers herself him himself his how
  i if in into is it its itself just me more most my myself no nor not now of off on once only or other our ours out over own
  same she should so some such than that the their theirs them themselves then there these they this those through to too under
  until up very was we were what when where which while who whom why will with would you your yours yourself yourselves
  oh okay ok yes yeah well said says say tell told asks asked let lets get got go goes went come came`.split(/\s+/),
);

const MAX_TERMS = 24;
/**
 * How much a word in a memory's keywords counts against one in its text. Keywords are few and
 * chosen, so a match there says more than one word among a turn's hundreds.
 */
const KEYWORD_WEIGHT = 2;
/**
 * How much a word in a memory's context (its neighbours' text, its scene's first memory: migration
 * 0037) counts against one in its own text: what was said around a moment finds it when the
 * question uses those words, without outranking a memory that says them itself.
 */
const CONTEXT_WEIGHT = 0.2;
const CANDIDATES = 64;
/**
 * How much being recent counts: the newest fitting memory scores up to this share above the
 * oldest. A long story is asked about its old days as often as its last hour; on the
 * long-conversation bench 0.3 recalls best (0.4: 3 points less at @4), while a pivotal memory of
 * this week still beats a trivial one of last year that shares more words.
 */
const RECENCY_WEIGHT = 0.3;
/** Asked what came first, how much the oldest fitting memory is preferred. */
const EARLINESS_WEIGHT = 0.4;
/** How much a pick gains for the question's words that no earlier pick held (all of them: +this). */
const COVERAGE_WEIGHT = 1;
/** Fiction-time half life of the recency boost: a month-old memory counts ~half as "recent". */
const RECENCY_HALF_LIFE_MINUTES = 60 * 24 * 30;

/**
 * The distinct content words of a text, lowercased, longest kept when there are many: in any
 * script (text/search-text.ts), a word of Japanese or Chinese as much as one of English.
 */
export function queryTerms(text: string): string[] {
  const terms: string[] = [];
  for (const raw of wordsOf(text)) {
    const word = raw.replace(/['’]s$/, '').replace(/['’]/g, '');
    if (!isSearchWord(word, STOP_WORDS) || terms.includes(word)) continue;
    terms.push(word);
  }
  // Longer words carry more meaning; keep those when the text is long.
  return terms.length > MAX_TERMS ? [...terms].sort((a, b) => b.length - a.length).slice(0, MAX_TERMS) : terms;
}

/**
 * An FTS5 query from free text: the distinct content words, each quoted (so no user text is ever
 * read as query syntax), joined with OR; bm25 then prefers memories matching more and rarer words.
 * Empty when the text has no content words.
 */
export function memoryQuery(text: string): string {
  return orQuery(queryTerms(text));
}

/**
 * One query word as FTS5 syntax: the word (quoted, so it is never read as syntax) or its start
 * (`prefixOf`: the word with another ending or particle).
 */
const termMatch = (term: string) => {
  const prefix = prefixOf(term);
  return prefix ? `("${term}" OR "${prefix}"*)` : `"${term}"`;
};
const orQuery = (terms: readonly string[]) => terms.map(termMatch).join(' OR ');
const andQuery = (terms: readonly string[]) => terms.map(termMatch).join(' AND ');

/** How many memories one term may match before it counts as common (counting stops there). */
const COMMON_TERM_DOCS = 1_000;
/** Rare terms are kept, rarest first, until they match about this many memories together. */
const MATCH_BUDGET = 1_500;
/** When the question holds only common words, how many of the newest memories holding them are scored. */
const NEWEST_SCORED = 128;

/**
 * The query's terms split by how many memories hold them. bm25 pays for every term by reading all
 * of its postings (to weigh it), so a word in most memories (a name, "the sea" in a sea story)
 * costs milliseconds at 100,000 memories and, being everywhere, tells the ranking almost nothing.
 * Each term's count stops at a cap, so finding out is cheap. Rare terms are kept rarest first
 * within a budget (the two rarest always); words no memory holds are dropped (they cannot find
 * anything and would only empty the all-words search).
 */
function splitByRarity(db: Db, terms: readonly string[]): { rare: string[]; common: string[] } {
  const counted = terms
    .map((term) => ({
      term,
      docs: db.get<{ n: number }>(`SELECT count(*) AS n FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ${COMMON_TERM_DOCS})`, [termMatch(term)])!.n,
    }))
    .filter((c) => c.docs > 0)
    .sort((a, b) => a.docs - b.docs);
  const rare: string[] = [];
  let docs = 0;
  for (const { term, docs: n } of counted) {
    if (n >= COMMON_TERM_DOCS || (rare.length >= 2 && docs + n > MATCH_BUDGET)) break;
    rare.push(term);
    docs += n;
  }
  return { rare, common: counted.filter((c) => c.docs >= COMMON_TERM_DOCS).map((c) => c.term) };
}

const wordsHeld = (row: MemoryRow, terms: readonly string[]) => {
  const text = `${row.summary} ${row.keywords}`.toLowerCase();
  return terms.filter((t) => text.includes(prefixOf(t) ?? t));
};

/** "When did I first…": the earliest of the fitting memories is the answer, not the latest. */
const askedFirst = (query: string) => /\b(first|earliest|originally|to begin with)\b/i.test(query);

/**
 * The owner's memories of this chat that best fit the query, at most k, never one the owner's role
 * did not witness, never a pinned one (those always go to the prompt on their own). bm25 finds the
 * candidates; significance and recency reorder them, so a pivotal memory from this week beats a
 * trivial one from long ago that happens to share a word.
 */
export function searchMemories(db: Db, search: MemorySearch): ScoredMemory[] {
  if (search.k <= 0) return [];
  const terms = queryTerms(search.query);
  const asked = askedTime(search.query, search.now);
  if (terms.length === 0 && !asked) return [];
  indexAllPendingMemories(db);
  const where = `m.owner_id = id_key(?) AND m.chat = ${chatKeyOf('memories', '?')} AND ${WITNESSED_BY[search.role]} AND m.pinned = 0`;
  // A memory's own words and the words around it (migration 0037) are two indexes: each match's
  // bm25 from each, the context's weighed lower, summed.
  const candidates = (match: string) =>
    db.all<MemoryRow & { bm: number }>(
      `WITH hits (seq, bm) AS (
         SELECT rowid, bm25(memories_fts, 1, ${KEYWORD_WEIGHT}) FROM memories_fts WHERE memories_fts MATCH ?
         UNION ALL
         SELECT rowid, ${CONTEXT_WEIGHT} * bm25(memories_context_fts) FROM memories_context_fts WHERE memories_context_fts MATCH ?)
       SELECT ${MEMORY_COLUMNS}, sum(h.bm) AS bm FROM hits h JOIN memory_rows m ON m.created_seq = h.seq
       WHERE ${where}
       GROUP BY h.seq ORDER BY bm LIMIT ${CANDIDATES}`,
      [match, match, search.ownerId, search.chatId],
    );
  // CROSS JOIN keeps the index outside, so its postings are read newest first and reading stops
  // at the limit.
  const newestHolding = (match: string) =>
    db.all<MemoryRow & { bm: number }>(
      `SELECT ${MEMORY_COLUMNS}, 0 AS bm
       FROM memories_fts CROSS JOIN memory_rows m ON m.created_seq = memories_fts.rowid
       WHERE memories_fts MATCH ? AND ${where}
       ORDER BY memories_fts.rowid DESC LIMIT ${NEWEST_SCORED}`,
      [match, search.ownerId, search.chatId],
    );
  let rows: (MemoryRow & { bm: number })[] = [];
  if (terms.length > 0) {
    const { rare, common } = splitByRarity(db, terms);
    if (rare.length > 0) {
      // Memories holding every rare word first: bm25 ranks them above those holding some, and
      // there are far fewer of them to score. Only when they are too few to choose from is every
      // memory holding any of them scored.
      rows = rare.length >= 2 ? candidates(andQuery(rare)) : [];
      if (rows.length < CANDIDATES) rows = candidates(orQuery(rare));
    } else if (common.length > 0) {
      // Only words that hundreds of memories share: bm25 would spend milliseconds weighing them
      // to tell those memories apart by word counts. The newest that hold two of them (the
      // longest: in any language longer words are the rarer ones; every further word of an
      // all-words search costs a full read of its postings), else any, are scored instead, by
      // how many of the question's words each holds. Recency is part of the score anyway, and a
      // question with a rarer word searches the whole chat.
      const longest = [...common].sort((a, b) => b.length - a.length).slice(0, 2);
      rows = newestHolding(andQuery(longest));
      if (rows.length < CANDIDATES) {
        const seen = new Set(rows.map((r) => r.created_seq));
        rows = [...rows, ...newestHolding(orQuery(common)).filter((r) => !seen.has(r.created_seq))];
      }
      for (const row of rows) row.bm = -wordsHeld(row, terms).length;
    }
  }
  // A question that names a time ("yesterday", "on 3 May 1890") is also answered from what was
  // remembered around then, whatever its words.
  if (asked) {
    const seen = new Set(rows.map((r) => r.created_seq));
    const around = db.all<MemoryRow & { bm: number }>(
      `SELECT ${MEMORY_COLUMNS}, 0 AS bm FROM memory_rows m INDEXED BY memories_by_time
       WHERE ${where} AND m.fiction_time BETWEEN ? AND ? LIMIT ${CANDIDATES * 4}`,
      [search.ownerId, search.chatId, addFictionMinutes(asked.at, -asked.spread), addFictionMinutes(asked.at, asked.spread)],
    );
    rows = [...rows, ...around.filter((r) => !seen.has(r.created_seq))];
  }
  if (rows.length === 0) return [];
  // bm25 is negative, more negative for a better match.
  const best = Math.max(...rows.map((r) => -r.bm));
  const seqs = rows.map((r) => r.created_seq);
  const newest = Math.max(...seqs);
  const oldest = Math.min(...seqs);
  const first = askedFirst(search.query);
  const scored = rows
    .map((row) => {
      const relevance = best > 0 ? -row.bm / best : asked ? 0 : 1;
      const age = Math.max(0, fictionMinutesBetween(row.fiction_time, search.now));
      const fictionRecency = Number.isFinite(age) ? 0.5 ** (age / RECENCY_HALF_LIFE_MINUTES) : 0.5;
      const orderRecency = newest === oldest ? 1 : (row.created_seq - oldest) / (newest - oldest);
      // Asked about a time, closeness to it stands in for recency: an old memory is what was asked for.
      const fit = asked ? Math.max(0, 1 - Math.abs(fictionMinutesBetween(asked.at, row.fiction_time)) / asked.spread) : 0;
      const recency = asked
        ? 1
        : first
          ? 1 - EARLINESS_WEIGHT * orderRecency
          : 1 - RECENCY_WEIGHT + (RECENCY_WEIGHT / 2) * (fictionRecency + orderRecency);
      const score = (relevance + 2 * (Number.isFinite(fit) ? fit : 0)) * (1 + 0.3 * row.significance) * recency;
      return { ...toMemory(row), score, why: { relevance, recency, matched: wordsHeld(row, terms) } };
    });
  return coveringPicks(scored, terms.length, search.k);
}

/**
 * The best k, chosen one at a time so that each pick is worth more for the words of the question
 * no earlier pick answered: asked about two things, the answer holds both, not the best four
 * memories of whichever is more talked about.
 */
function coveringPicks(scored: ScoredMemory[], termCount: number, k: number): ScoredMemory[] {
  const left = [...scored].sort((a, b) => b.score - a.score || b.seq - a.seq);
  if (termCount < 2) return left.slice(0, k);
  const covered = new Set<string>();
  const picks: ScoredMemory[] = [];
  while (picks.length < k && left.length > 0) {
    let bestAt = 0;
    let bestValue = -Infinity;
    for (const [i, memory] of left.entries()) {
      const fresh = memory.why.matched.filter((t) => !covered.has(t)).length;
      const value = memory.score * (1 + (COVERAGE_WEIGHT * fresh) / termCount);
      if (value > bestValue) [bestAt, bestValue] = [i, value];
    }
    const [pick] = left.splice(bestAt, 1);
    for (const t of pick!.why.matched) covered.add(t);
    picks.push(pick!);
  }
  return picks;
}

/** The owner's pinned memories of this chat that its role witnessed, oldest first. */
export function pinnedMemories(db: Db, chatId: string, ownerId: string, role: ChatRole): Memory[] {
  return db
    .all<MemoryRow>(
      `SELECT ${MEMORY_COLUMNS} FROM memory_rows m
       WHERE m.owner_id = id_key(?) AND m.chat = ${chatKeyOf('memories', '?')} AND m.pinned = 1 AND ${WITNESSED_BY[role]} ORDER BY m.created_seq`,
      [ownerId, chatId],
    )
    .map(toMemory);
}
