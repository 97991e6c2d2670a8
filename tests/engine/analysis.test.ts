import { beforeEach, describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import { LlmError, type LlmClient } from '../../src/engine/llm/port.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import { draft, kickoffInput } from '../support/fixtures.ts';
import { testLeader } from '../support/leader.ts';
import { scriptedLlm, type Script } from '../support/scripted-llm.ts';
import { openTestEngine, testClock } from '../support/sqlite.ts';

let engine: Engine;
let db: Db;
let chat: string;
let bot: string;
const count = await loadTokenCounter();

const kickoff = kickoffInput();

beforeEach(async () => {
  ({ engine, db } = await openTestEngine({ now: testClock().now }));
  bot = engine.newId();
  engine.append([draft.you({ name: 'Ada' }), draft.bot(bot, { name: 'Mira' })]);
  chat = engine.startChat(bot, kickoff);
});

/** One exchange: the user's words and the narrator's finished reply. Returns the reply's seq. */
function exchange(userText: string, reply: string): number {
  const turn = engine.turns.beginTurn(chat, userText);
  engine.turns.finishTurn(turn, { text: reply, usage: null, truncated: false, reason: null, error: null });
  return db.get<{ seq: number }>("SELECT max(seq) AS seq FROM events WHERE kind = 'assistant_turn'")!.seq;
}

interface Feeling {
  affinityDelta?: number;
  trustDelta?: number;
  newFacts?: string[];
}
function analysis(over: { minutesPassed?: number; significance?: number; sceneEnd?: string; newPlace?: string; feelings?: Record<string, Feeling>; keywords?: unknown } = {}): string {
  const feeling = (f: Feeling = {}) => ({ affinityDelta: 0, trustDelta: 0, newFacts: [], ...f });
  const feelings = over.feelings ?? {};
  return JSON.stringify({
    minutesPassed: over.minutesPassed ?? 5,
    significance: over.significance ?? 1,
    sceneEnd: over.sceneEnd ?? 'none',
    newPlace: over.newPlace ?? '',
    feelings: Object.fromEntries(Object.entries(feelings).map(([k, f]) => [k, feeling(f)])),
    ...(over.keywords === undefined ? {} : { keywords: over.keywords }),
  });
}

/** Runs every pending job, in order, with the given client. */
async function analyzeAll(llm: LlmClient) {
  for (let job = engine.analysis.pending(chat)[0]; job; job = engine.analysis.pending(chat)[0]) {
    const wrote = await engine.analysis.run(llm, job, count);
    expect(wrote).toBe(true);
  }
}

const edge = (source: string, target: string) => engine.chatState(chat)!.edges.find((e) => e.source === source && e.target === target);
const kindsCausedBy = (seq: number) =>
  db.all<{ kind: string }>('SELECT kind FROM events WHERE cause_key = (SELECT id FROM event_rows WHERE seq = ?) ORDER BY seq', [seq]).map((r) => r.kind);

describe('the analysis after a reply', () => {
  it('applies clamped deltas per directed pair, moves the clock and writes the witness memory, all caused by the reply', async () => {
    const reply = exchange('"I found the map," I whisper.', 'Mira grins and pockets the compass.');
    expect(engine.analysis.pending(chat)).toEqual([{ type: 'turn', chatId: chat, seq: reply, key: `turn:${reply}` }]);
    const llm = scriptedLlm(
      analysis({
        minutesPassed: 15,
        significance: 2,
        feelings: { 'Mira -> Ada': { affinityDelta: 40, trustDelta: 7 }, 'Ada -> Mira': { affinityDelta: -3, trustDelta: -25 } },
      }),
    );
    await analyzeAll(llm.client);

    expect(edge(bot, 'you')).toMatchObject({ affinity: 60, trust: 57 });
    expect(edge('you', bot)).toMatchObject({ affinity: 47, trust: 40 });
    const drawer = engine.chatState(chat)!;
    expect(drawer.fictionTime).toBe('1890-05-01T20:15:00');
    const memory = drawer.memories.find((m) => m.summary.includes('I found the map'))!;
    expect(memory).toMatchObject({ ownerId: bot, significance: 2, witness: { you: true, host: true, guest: false }, fictionTime: '1890-05-01T20:15:00', pinned: false });
    expect(memory.summary).toContain('Mira grins and pockets the compass.');
    expect(memory.sceneId).toBe(drawer.scene!.id);
    expect(kindsCausedBy(reply)).toEqual(['clock_advanced', 'edge_update', 'edge_update', 'memory_written', 'turn_analyzed']);
    expect(engine.analysis.pending(chat)).toEqual([]);
    // The next prompt carries both directions of feeling. The memory matches the question, but the
    // turn it records is still in the recent history, so it is not spent twice.
    const next = engine.turns.beginTurn(chat, '"Where did you put the compass?"');
    const prompt = engine.narratorPrompt(chat, next.startedSeq, count).messages;
    expect(prompt[0]!.content).toContain('Mira toward Ada: affinity 60/100, trust 57/100.');
    expect(prompt[0]!.content).toContain('Ada toward Mira: affinity 47/100, trust 40/100.');
    expect(prompt[0]!.content).not.toContain('pockets the compass');
    expect(prompt.filter((m) => m.content.includes('pockets the compass'))).toHaveLength(1);
    // The classifier saw who is present and both pairs, and got the turn itself.
    const [call] = llm.calls;
    expect(call!.options).toMatchObject({ priority: 'analysis', json: true });
    expect(call!.messages[0]!.content).toContain('Mira -> Ada');
    expect(call!.messages[1]!.content).toContain('I found the map');
  });

  it("indexes each memory with the classifier's keywords, the place and who was there, so a question in other words finds it", async () => {
    exchange('"Tomás and I have been reading up on adoption agencies," I admit.', 'Mira squeezes my hand and says nothing for a while.');
    const llm = scriptedLlm(analysis({ keywords: ['looking into', ' Family ', 'family', 'children,  kids', 'x'.repeat(200), '', ...Array.from({ length: 30 }, (_, i) => `word${i}`)] }));
    await analyzeAll(llm.client);
    // The classifier was asked for them.
    expect(llm.calls[0]!.messages.map((m) => m.content).join('\n')).toContain('"keywords"');
    const memory = engine.chatState(chat)!.memories.find((m) => m.summary.includes('adoption agencies'))!;
    const keywords = memory.keywords.split(', ');
    expect(keywords.slice(0, 4)).toEqual(['looking into', 'Family', 'children kids', 'x'.repeat(60)]);
    expect(keywords).toHaveLength(16);
    expect(keywords.filter((k) => k.toLowerCase() === 'family')).toHaveLength(1);

    // The turn never says "look into", "family" or "kids": its keywords do.
    const now = engine.chatState(chat)!.fictionTime;
    const ask = (query: string) => engine.searchMemories({ ownerId: bot, chatId: chat, role: 'host', query, k: 4, now }).map((m) => m.id);
    expect(ask('What did we look into?')).toEqual([memory.id]);
    expect(ask('Did I mention the kids?')).toEqual([memory.id]);
  });

  it('indexes the place and the people present with every memory, whatever the classifier gave', async () => {
    exchange('"Quiet night," I say.', 'Mira nods.');
    await analyzeAll(scriptedLlm(analysis()).client);
    const state = engine.chatState(chat)!;
    const memory = state.memories.find((m) => m.summary.includes('Quiet night'))!;
    expect(memory.keywords.split(', ')).toEqual([state.place!.name, 'Ada', 'Mira']);
  });

  it('does not repeat a long recent reply as a memory, even cut to fit one', async () => {
    const long = `Mira tells the whole tale of the lighthouse. ${'The keeper climbed the stairs again. '.repeat(150)}`;
    exchange('"Tell me about the lighthouse."', long);
    await analyzeAll(scriptedLlm(analysis()).client);
    const memory = engine.chatState(chat)!.memories.find((m) => m.summary.includes('whole tale'))!;
    expect(memory.summary.length).toBeLessThan(long.length);
    const next = engine.turns.beginTurn(chat, '"And the lighthouse keeper?"');
    const prompt = engine.narratorPrompt(chat, next.startedSeq, count).messages;
    expect(prompt.filter((m) => m.content.includes('whole tale'))).toHaveLength(1);
  });

  it('never adds a fact twice, across turns or within one answer', async () => {
    exchange('"I cannot swim."', 'Mira frowns.');
    exchange('"Really, I cannot swim."', 'Mira nods slowly.');
    const llm = scriptedLlm(
      analysis({ feelings: { 'Mira -> Ada': { newFacts: ['Ada cannot swim.', 'ada cannot swim', 'Ada found a map'] } } }),
      analysis({ feelings: { 'Mira -> Ada': { newFacts: ['Ada  cannot swim', 'Ada is afraid of the sea'] } } }),
    );
    await analyzeAll(llm.client);
    expect(edge(bot, 'you')!.knowledge).toEqual(['Ada cannot swim.', 'Ada found a map', 'Ada is afraid of the sea']);
  });

  it('auto-pins pivotal memories up to 8, evicting the oldest automatic pin and never a user pin', async () => {
    exchange('"Hello."', 'Mira waves.');
    await analyzeAll(scriptedLlm(analysis({ significance: 1 })).client);
    const ordinary = engine.chatState(chat)!.memories[0]!;
    engine.pinMemory(chat, ordinary.id, true);

    const pivotal: string[] = [];
    for (let i = 1; i <= 9; i++) {
      exchange(`"Secret number ${i}."`, `Mira keeps secret ${i}.`);
      await analyzeAll(scriptedLlm(analysis({ significance: 3 })).client);
      pivotal.push(engine.chatState(chat)!.memories.find((m) => m.summary.includes(`secret ${i}.`))!.id);
    }
    const drawer = engine.chatState(chat)!;
    expect(drawer.pinned).toEqual({ count: 8, cap: 8 });
    const pinnedIds = drawer.memories.filter((m) => m.pinned).map((m) => m.id);
    expect(pinnedIds).toContain(ordinary.id);
    // 1 user pin + 7 automatic: the two oldest automatic pins gave way, newest kept.
    expect(pinnedIds).not.toContain(pivotal[0]);
    expect(pinnedIds).not.toContain(pivotal[1]);
    expect(pinnedIds).toEqual(expect.arrayContaining(pivotal.slice(2)));

    // Once every pin is the user's, nothing is evicted: a new pivotal memory stays unpinned...
    for (const id of pivotal.slice(2)) engine.pinMemory(chat, id, true);
    exchange('"One more."', 'Mira sighs.');
    await analyzeAll(scriptedLlm(analysis({ significance: 3 })).client);
    const last = engine.chatState(chat)!.memories.find((m) => m.summary.includes('Mira sighs.'))!;
    expect(last).toMatchObject({ significance: 3, pinned: false });
    // ...and a ninth pin by hand is refused with the reason.
    expect(() => engine.pinMemory(chat, last.id, true)).toThrow('All 8 pins are yours already');
    expect(engine.chatState(chat)!.pinned.count).toBe(8);
  });

  it('closes the scene on a hard signal and opens the next in the new place', async () => {
    const firstScene = engine.chatState(chat)!.scene!.id;
    exchange('"Let us go ashore."', 'They row to the harbour and climb the steps.');
    await analyzeAll(
      scriptedLlm(analysis({ minutesPassed: 40, sceneEnd: 'place_changed', newPlace: 'The harbour steps' }), JSON.stringify({ summary: 'We went ashore.', views: {} }))
        .client,
    );
    const drawer = engine.chatState(chat)!;
    expect(drawer.scene!.id).not.toBe(firstScene);
    expect(drawer.place!.name).toBe('The harbour steps');
    expect(drawer.activities.every((a) => a.containerId === drawer.place!.id)).toBe(true);
    expect(db.get('SELECT close_reason AS r, closed_fiction_time AS t FROM scenes WHERE id = ?', [firstScene])).toEqual({ r: 'place_changed', t: '1890-05-01T20:40:00' });
  });

  it('leaves the reply intact and logs the failure when every model fails; the defaults still record the turn', async () => {
    const reply = exchange('"Anyone there?"', 'The deck creaks under Mira\'s boots.');
    const before = engine.transcript(chat).turns.map((t) => t.text);
    const failing = scriptedLlm('not json at all', 'still not json', ...engine.settings().classifierFallbacks.map(() => new LlmError('upstream_error', 'down') as Script));
    await analyzeAll(failing.client);

    expect(engine.transcript(chat).turns.map((t) => t.text)).toEqual(before);
    const failures = engine.classifierFailures().filter((f) => f.task === 'analysis');
    expect(failures.length).toBe(1 + engine.settings().classifierFallbacks.length);
    expect(failures.at(-1)).toMatchObject({ chat_id: chat, raw: 'still not json', attempts: 2 });
    expect(db.get<{ p: string }>("SELECT payload AS p FROM events WHERE kind = 'turn_analyzed' AND cause_key = (SELECT id FROM event_rows WHERE seq = ?)", [reply])!.p).toContain('"ok":false');
    const drawer = engine.chatState(chat)!;
    expect(drawer.fictionTime).toBe('1890-05-01T20:02:00');
    expect(drawer.memories.some((m) => m.summary.includes('Anyone there?'))).toBe(true);
    expect(edge(bot, 'you')).toMatchObject({ affinity: 50, trust: 50 });
    expect(engine.analysis.pending(chat)).toEqual([]);
  });

  it('writes no memory for a bot that was away, and its witness flags say who was there', async () => {
    engine.append([
      {
        kind: 'activity_change',
        chatId: chat,
        payload: { entity: bot, containerId: null, slot: '', posture: 'lying', action: { verb: 'sleeping', interruptible: true, requiredAttention: 'none', expectedMinutes: 480 }, attention: '', holding: [], status: 'asleep' },
      },
    ]);
    exchange('*I open Mira\'s sea chest and read her letters.*', 'The letters speak of a debt to the harbour master.');
    const llm = scriptedLlm(analysis({ feelings: { 'Mira -> Ada': { affinityDelta: -10 } } }));
    await analyzeAll(llm.client);
    expect(llm.calls[0]!.messages[0]!.content).toContain('Not present: Mira');
    expect(engine.chatState(chat)!.memories.filter((m) => m.summary.includes('sea chest'))).toEqual([]);
    // No pair involving the sleeper either: she cannot resent what she did not see.
    expect(edge(bot, 'you')).toMatchObject({ affinity: 50 });
  });

  it('trims the classifier input to its own budget', async () => {
    const long = Array.from({ length: 1500 }, (_, i) => `word${i}`).join(' ');
    exchange(`"${long}"`, `Mira listens. ${long}`);
    const llm = scriptedLlm(analysis());
    await analyzeAll(llm.client);
    const [system, user] = llm.calls[0]!.messages;
    expect(count(system!.content) + count(user!.content)).toBeLessThanOrEqual(engine.settings().classifierBudget);
    expect(user!.content).toContain('word0');
  });

  it('is undone with the reply it analysed when the reply is regenerated, and dropped if the reply goes while it runs', async () => {
    exchange('"Tell me a secret."', 'Mira tells you about the hidden cove.');
    await analyzeAll(scriptedLlm(analysis({ minutesPassed: 30, feelings: { 'Mira -> Ada': { trustDelta: 9 } } })).client);
    expect(edge(bot, 'you')!.trust).toBe(59);
    engine.turns.regenerate(chat);
    expect(edge(bot, 'you')!.trust).toBe(50);
    expect(engine.chatState(chat)!.fictionTime).toBe('1890-05-01T20:00:00');
    expect(engine.chatState(chat)!.memories.some((m) => m.summary.includes('hidden cove'))).toBe(false);

    // A reply regenerated while its analysis is still running: the late answer writes nothing.
    const turn = engine.turns.streamingTurn(chat)!;
    engine.turns.finishTurn(turn, { text: 'Mira says nothing.', usage: null, truncated: false, reason: null, error: null });
    const job = engine.analysis.pending(chat)[0]!;
    let answer!: (text: string) => void;
    const slow = scriptedLlm(() => '', analysis());
    slow.client.complete = () => new Promise((resolve) => (answer = (text) => resolve({ text, usage: null, model: 'm', finishReason: 'stop' })));
    const running = engine.analysis.run(slow.client, job, count);
    await new Promise((r) => setTimeout(r, 0));
    engine.turns.regenerate(chat);
    answer(analysis({ feelings: { 'Mira -> Ada': { trustDelta: 9 } } }));
    expect(await running).toBe(false);
    expect(edge(bot, 'you')!.trust).toBe(50);
  });
});

describe('the analysis queue', () => {
  it('runs a job interrupted by a leader change exactly once', async () => {
    const reply = exchange('"Keep this safe."', 'Mira takes the locket.');
    // The old leader's call is in flight when it goes away; the new leader finds the job pending.
    let oldLeaderAnswer!: (text: string) => void;
    const oldLlm: LlmClient = {
      complete: () => new Promise((resolve) => (oldLeaderAnswer = (text) => resolve({ text, usage: null, model: 'm', finishReason: 'stop' }))),
      stream: () => {
        throw new Error('not used');
      },
    };
    const commits: string[] = [];
    const leaderFor = (llm: LlmClient, name: string) => {
      const { leader, events } = testLeader(engine, llm);
      const emitted = events.push.bind(events);
      events.push = (...added) => (added.some((e) => e.type === 'changed') && commits.push(name), emitted(...added));
      return leader;
    };
    const oldLeader = leaderFor(oldLlm, 'old');
    oldLeader.kickAnalysis();
    await new Promise((r) => setTimeout(r, 0));
    expect(oldLeader.analysing(chat)).toBe(true);

    const newLeader = leaderFor(scriptedLlm(analysis({ feelings: { 'Mira -> Ada': { affinityDelta: 4 } } })).client, 'new');
    newLeader.kickAnalysis();
    await newLeader.idle();
    // The old leader's answer arrives after all (it was only slow): it must not land a second time.
    oldLeaderAnswer(analysis({ feelings: { 'Mira -> Ada': { affinityDelta: 4 } } }));
    await oldLeader.idle();

    expect(db.get<{ n: number }>("SELECT count(*) AS n FROM events WHERE kind = 'turn_analyzed' AND cause_key = (SELECT id FROM event_rows WHERE seq = ?)", [reply])!.n).toBe(1);
    expect(engine.chatState(chat)!.memories.filter((m) => m.summary.includes('locket'))).toHaveLength(1);
    expect(edge(bot, 'you')!.affinity).toBe(54);
    expect(commits).toEqual(['new', 'old']);
  });

  it('a stopped leader writes nothing and leaves the job for the next', async () => {
    exchange('"Hold this."', 'Mira takes the lantern.');
    const { leader: oldLeader, changes } = testLeader(engine, scriptedLlm('hang').client);
    oldLeader.kickAnalysis();
    await new Promise((r) => setTimeout(r, 0));
    oldLeader.stop();
    await oldLeader.idle();
    expect(engine.analysis.pending(chat)).toHaveLength(1);
    expect(engine.classifierFailures()).toEqual([]);
    expect(changes()).toEqual([]);
  });

  it('analyses only the newest replies of a story that arrives without analysis', async () => {
    const replies: number[] = [];
    const drafts = [];
    for (let i = 0; i < 10; i++) {
      const turnId = engine.newId();
      drafts.push(draft.userTurn(chat, engine.newId(), `"Old line ${i}."`), draft.assistantStarted(chat, turnId, bot), draft.assistantTurn(chat, turnId, bot, `Old reply ${i}.`));
    }
    engine.append(drafts);
    replies.push(...db.all<{ seq: number }>("SELECT seq FROM events WHERE kind = 'assistant_turn' AND chat_id = ? ORDER BY seq", [chat]).map((r) => r.seq));
    expect(engine.analysis.pending(chat).map((j) => j.seq)).toEqual(replies.slice(-3));
    // Across every chat too (the leader's start): each chat's last replies, read from its end.
    expect(engine.analysis.pending().map((j) => j.seq)).toEqual(replies.slice(-3));
    await analyzeAll(scriptedLlm(analysis(), analysis(), analysis()).client);
    // Done with those, the older ones stay as they are: no backlog of the past.
    expect(engine.analysis.pending()).toEqual([]);
  });

  it('works through one chat in order, one job at a time, while other chats run beside it', async () => {
    const other = engine.startChat(bot, { ...kickoff, title: 'Second story' });
    exchange('"One."', 'First reply.');
    exchange('"Two."', 'Second reply.');
    const chatA = chat;
    chat = other;
    exchange('"Elsewhere."', 'Other reply.');
    chat = chatA;
    let inFlight = 0;
    let most = 0;
    const order: string[] = [];
    // Which reply a call analyses: the one nearest after "Latest turn:" (earlier turns follow it).
    const replyOf = (text: string) => {
      const latest = text.slice(text.indexOf('Latest turn:'));
      return ['First reply.', 'Second reply.', 'Other reply.']
        .filter((r) => latest.includes(r))
        .sort((a, b) => latest.indexOf(a) - latest.indexOf(b))[0];
    };
    const llm: LlmClient = {
      complete: async (messages, options) => {
        inFlight++;
        most = Math.max(most, inFlight);
        order.push(replyOf(messages.map((m) => m.content).join('\n')) ?? '?');
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return { text: analysis(), usage: null, model: options.model, finishReason: 'stop' };
      },
      stream: () => {
        throw new Error('not used');
      },
    };
    const { leader } = testLeader(engine, llm);
    leader.kickAnalysis();
    await leader.idle();
    expect(engine.analysis.pending()).toEqual([]);
    expect(most).toBe(2);
    // Chat A's replies were analysed in story order, the other chat's beside them.
    expect(order.filter((o) => o !== 'Other reply.')).toEqual(['First reply.', 'Second reply.']);
    expect(order).toHaveLength(3);
  });
});
