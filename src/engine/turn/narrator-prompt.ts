import type { Db } from '../db/port.ts';
import { storyLanguage } from '../queries/story-language.ts';
import { languageInstruction } from '../text/language.ts';
import { getBot } from '../authoring/queries.ts';
import { personaOf } from '../authoring/personas.ts';
import { chatState, type ChatState } from '../queries/chat-state.ts';
import type { Memory } from '../memory/memory-row.ts';
import { pinnedMemories, searchMemories } from '../memory/retrieval.ts';
import { chatTranscript, type TranscriptTurn } from '../queries/transcript.ts';
import type { Settings } from '../settings/settings.ts';
import { historyLabel, historyText } from './history-turn.ts';
import { describeItem } from '../state/items.ts';
import { fieldText } from '../state/fields.ts';
import { assemblePrompt, type AssembledPrompt, type PromptPart } from './prompt.ts';
import { FRAMING, type Framing } from './tokenizer-family.ts';
import type { TokenCounter } from './tokens.ts';
import { reportOf, type PromptReport } from './prompt-report.ts';
import { describeFictionTime, storyTimeAgo, storyTimeSpan } from '../fiction-time.ts';
import type { EntityRef } from '../events/fields.ts';
import { castOf } from '../analysis/cast.ts';
import { substituteNames } from '../cards/card-to-bot.ts';
import { activateLore, type FiredEntry } from '../lore/activation.ts';
import { attachedLorebooks, lorebookForPrompt } from '../lore/queries.ts';

/** Turns of story kept at the SHOULD tier; older ones are NICE and go first. */
const RECENT_TURNS = 8;
const HISTORY_LIMIT = 300;

/**
 * Everything the narrator is told for the reply started at `replySeq`, as tiered parts: the story
 * before it, ending with the user's turn it answers (or a request to continue). The user's words
 * reach it only as in-character text: OOC asides are stripped from every turn.
 */
export function narratorPrompt(
  db: Db,
  chatId: string,
  replySeq: number,
  settings: Settings,
  count: TokenCounter,
  /** 'impersonate': the same story, but the model drafts the player's next message instead of the reply. */
  mode: 'reply' | 'impersonate' = 'reply',
  /** The model's chat template's cost around the text, where its family's tokenizer counts. */
  framing: Framing = FRAMING.cl100k,
): AssembledPrompt & { report: PromptReport } {
  const drawer = chatState(db, chatId);
  if (!drawer) throw new Error(`No chat ${chatId}`);
  // Whose reply this is: the host's, or a guest's given the turn. Theirs is the voice, the card,
  // the lore and the memories; everyone else present is voiced beside them.
  const speaking =
    mode === 'reply' ? (db.get<{ speaker: string }>("SELECT speaker FROM transcript WHERE chat_id = ? AND seq = ? AND role = 'assistant'", [chatId, replySeq])?.speaker ?? drawer.botId) : drawer.botId;
  const bot = getBot(db, speaking);
  const you = personaOf(db, chatId);
  const botName = bot?.name ?? 'The character';
  const youName = you?.name ?? 'the user';
  // A bot imported from a card: its system prompt and post-history instructions, and the name
  // {{char}} stands for. Names in the card's texts are filled in here, at prompt time.
  const card = db.get<{ nickname: string; system_prompt: string; post_history: string }>(
    'SELECT nickname, system_prompt, post_history FROM bot_cards WHERE bot_id = ?',
    [speaking],
  );
  const fill = (text: string) => substituteNames(text, { char: card?.nickname || botName, user: youName });
  const nameOf = (entity: EntityRef) => (entity === 'you' ? youName : (drawer.names[entity] ?? 'someone'));
  const parts: PromptPart[] = [];
  const system = (tier: PromptPart['tier'], label: string, text: string, keep = 0) =>
    text.trim() && parts.push({ tier, label, slot: 'system', text: text.trim(), keep });

  system(
    'must',
    'frame',
    mode === 'impersonate'
      ? `You write ${youName}'s words and actions in an interactive story, as the user who plays ${youName} would: ` +
          `one short paragraph, what ${youName} says in quotes and does between asterisks, in ${youName}'s voice. ` +
          `You never write ${botName}'s words or actions, nor anyone else's. Stay in the story; do not mention being an AI.`
      : cardFrame(
          card?.system_prompt ?? '',
          `You are the narrator of an interactive story. You write ${botName}'s words and actions and everything else in the world, ` +
            `in vivid prose of one to three paragraphs. You never write ${youName}'s words, thoughts or actions: ${youName} is played by the user. ` +
            `Stay in the story; do not mention being an AI.`,
          fill,
        ),
  );
  system('must', 'language', languageInstruction(storyLanguage(db, chatId), mode === 'impersonate' ? `${youName}'s words and actions` : 'every word of the story'));
  // The bot's lorebook (its card's character_book) and those attached to the chat: entries whose keys the latest story mentions,
  // before or after the character as each says; constant ones always, at the MUST tier.
  // The story before this reply, read once: the lore scans its end, the history below tells it.
  const page = chatTranscript(db, chatId, { limit: HISTORY_LIMIT, beforeSeq: replySeq });
  const shown = page.turns.filter((t) => t.status !== 'streaming' && !t.hidden);
  const lore = firedLore(db, chatId, speaking, shown.slice(-LORE_SCAN), count);
  const loreParts = (placement: 'before_char' | 'after_char') => {
    for (const hit of lore.filter((f) => f.entry.placement === placement)) {
      system(hit.entry.constant ? 'must' : 'should', `lore: ${hit.entry.name ? `${hit.entry.name} (${hit.key})` : hit.key}`.slice(0, 120), fill(hit.entry.content), 4);
    }
  };
  loreParts('before_char');
  system('must', 'persona', `${botName}${bot?.pronouns ? ` (${bot.pronouns})` : ''}: ${fill(bot?.persona ?? '')}${bot?.traits.length ? `\nTraits: ${bot.traits.join(', ')}.` : ''}`);
  loreParts('after_char');
  if (speaking !== drawer.botId) system('must', 'turn', `It is ${botName}'s turn: ${botName} speaks and acts now; the others present may react, briefly.`);
  // The others present are the narrator's to voice too, each knowing only what they witnessed.
  const guests = (castOf(db, chatId)?.present ?? []).filter((m) => m.role !== 'you' && m.ref !== speaking);
  for (const guest of guests) {
    const guestBot = getBot(db, guest.ref);
    system(
      'must',
      `${guest.role}: ${guest.name}`,
      `Also here, and yours to voice: ${guest.name}${guestBot?.pronouns ? ` (${guestBot.pronouns})` : ''}: ${guestBot?.persona ?? ''}\n` +
        `${guest.name} knows only what ${guest.name} saw and heard while present; what was said while ${guest.name} was away is unknown to ${guest.name}. ` +
        `When several people speak, make clear who says what.`,
    );
  }
  system('must', 'you', `${youName}${you?.pronouns ? ` (${you.pronouns})` : ''}: ${you?.persona ?? ''}`);
  const place = drawer.place
    ? `Place: ${drawer.place.name} (${drawer.place.type})${Object.keys(drawer.place.properties).length ? `; ${Object.entries(drawer.place.properties).map(([k, v]) => `${k}: ${v}`).join(', ')}` : ''}.`
    : '';
  const doing = drawer.activities
    .map((a) => {
      const held = drawer.items.filter((i) => i.holder === a.entity).map((i) => i.name);
      return `${nameOf(a.entity)}: ${[a.posture, a.action.verb, a.slot].filter(Boolean).join(', ')}${held.length ? `, with ${held.join(' and ')}` : ''}.`;
    })
    .join('\n');
  system(
    'must',
    'scene',
    [`It is ${describeFictionTime(drawer.fictionTime)}${drawer.weather ? `; the weather: ${drawer.weather}` : ''}.`, storyTimeSoFar(drawer), place, doing, drawer.narrativeAnchor && `Where the story is heading: ${drawer.narrativeAnchor}`]
      .filter(Boolean)
      .join('\n'),
  );
  if (bot) {
    system('should', 'backstory', bot.backstory && `${botName}'s backstory: ${fill(bot.backstory)}`, 3);
    system('should', 'voice', bot.voiceSamples.length ? `How ${botName} speaks:\n${bot.voiceSamples.map((v) => `- ${fill(v)}`).join('\n')}` : '', 4);
    system('should', 'relationship', bot.initialRelationship && `${botName} and ${youName}: ${fill(bot.initialRelationship)}`, 5);
  }
  // Feelings and knowledge between everyone present, the bot's own toward others kept longest.
  const away = new Set(drawer.activities.filter((a) => a.status !== 'present').map((a) => a.entity));
  for (const edge of drawer.edges.filter((e) => !away.has(e.source) && !away.has(e.target))) {
    const known = edge.knowledge.length ? `\n${nameOf(edge.source)} knows about ${nameOf(edge.target)}: ${edge.knowledge.join('; ')}.` : '';
    system(
      'should',
      `feelings: ${nameOf(edge.source)} → ${nameOf(edge.target)}`,
      `${nameOf(edge.source)} toward ${nameOf(edge.target)}: affinity ${Math.round(edge.affinity)}/100, trust ${Math.round(edge.trust)}/100.` +
        `${edge.summary ? ` ${edge.summary}` : ''}${known}`,
      edge.source === speaking ? 7 : 5,
    );
  }
  // What the story still owes, however long ago it was said: a promise made 300 turns back stays in view.
  const open = drawer.threads.filter((t) => t.status === 'open');
  system(
    'should',
    'open threads',
    open.length
      ? `Open threads (promises, quests, secrets and questions the story has not settled; pick them up when it fits):\n${open
          .map((t) => `- ${t.kind}, since ${storyTimeAgo(t.openedFictionTime, drawer.fictionTime)}: ${t.text}`)
          .join('\n')}`
      : '',
    7,
  );
  // The things that matter, who has them and in what state: a key handed over stays handed over.
  system(
    'should',
    'items',
    drawer.items.length ? `Things in the story (who has them, where, their state):\n${drawer.items.slice(0, 30).map((i) => `- ${describeItem(i, nameOf)}`).join('\n')}` : '',
    6,
  );
  // The player's own fields, as they stand: what they chose to keep track of, the narrator keeps to.
  const tracked = drawer.fields.flatMap(({ def, values }) =>
    Object.entries(values)
      .filter(([owner]) => owner === '' || !away.has(owner))
      .map(([owner, value]) => `- ${owner ? `${nameOf(owner)}'s ` : ''}${def.name}: ${fieldText(value)}${def.type === 'number' ? ` (of ${def.min}–${def.max})` : ''}`),
  );
  system('should', 'fields', tracked.length ? `Tracked by the player (keep to them):\n${tracked.join('\n')}` : '', 6);
  // After a reset of the host, the story before it stays readable but is no longer told.
  const resetSeq = page.resetSeq ?? 0;
  const history = shown
    .filter((t) => t.seq > resetSeq)
    .map((turn) => ({ turn, text: historyText(turn) }))
    .filter((h) => h.text.trim() !== '');
  const answering = history.at(-1)?.turn.role === 'user' ? history.pop() : undefined;
  // A reset story starts again from the bot's kickoff.
  if (resetSeq > 0 && history.length === 0 && bot?.kickoff) system('must', 'kickoff', `The story starts afresh: ${fill(bot.kickoff)}`);
  // Counted newest first: once older turns add up past the soft budget they can never be kept
  // (NICE goes oldest first), so they are left out uncounted and the cost stays bounded by the budget.
  let counted = 0;
  const kept: PromptPart[] = [];
  for (let index = history.length - 1; index >= 0; index--) {
    const { turn, text } = history[index]!;
    const recent = index >= history.length - RECENT_TURNS;
    if (!recent && counted > settings.narrativeBudget.soft) break;
    const tokens = count(text);
    counted += tokens;
    kept.push({ tier: recent ? 'should' : 'nice', label: historyLabel(turn.speakerName, text), slot: 'history', role: turn.role, text, keep: 10 + index, tokens, turnId: turn.turnId });
  }
  parts.push(...kept.reverse());

  // What the bot remembers: its pinned memories, and the ones that fit this moment best. Only what
  // it witnessed, as the host: both lists filter on the host witness flag.
  // Each memory says how long ago it was in the story, by the chat's own clock.
  const recall = (m: Memory) => `- (${storyTimeAgo(m.fictionTime, drawer.fictionTime)}, ${describeFictionTime(m.fictionTime)}) ${m.summary}`;
  const role = speaking === drawer.botId ? 'host' : 'guest';
  const pinned = pinnedMemories(db, chatId, speaking, role);
  system('should', 'pinned memories', pinned.length ? `${botName} will never forget:\n${pinned.map(recall).join('\n')}` : '', 8);
  // A memory of a turn still in the recent history would say it twice. Its tail is the reply's
  // text (or, for a long reply cut to fit a memory, a stretch of it), so that is what is looked for.
  const recentText = kept.map((k) => k.text);
  const recalled = searchMemories(db, {
    ownerId: speaking,
    chatId,
    role,
    query: [answering?.text ?? history.at(-1)?.text ?? '', drawer.place?.name ?? '', drawer.activities.map((a) => a.action.verb).join(' ')].join('\n'),
    k: settings.retrievalK,
    now: drawer.fictionTime,
  }).filter((m) => {
    const tail = (m.summary.split('\n\n').at(-1) ?? '').slice(-160);
    return !tail || !recentText.some((t) => t.includes(tail));
  });
  system('should', 'recalled memories', recalled.length ? `${botName} remembers:\n${recalled.map(recall).join('\n')}` : '', 6);
  // Each other's own memories, only those their role witnessed: nothing said while they were away.
  for (const guest of guests) {
    const theirs = [
      ...pinnedMemories(db, chatId, guest.ref, guest.role),
      ...searchMemories(db, { ownerId: guest.ref, chatId, role: guest.role, query: answering?.text ?? history.at(-1)?.text ?? '', k: settings.retrievalK, now: drawer.fictionTime }),
    ];
    const unique = theirs.filter((m, i) => theirs.findIndex((o) => o.id === m.id) === i);
    system('should', `${guest.name}'s memories`, unique.length ? `${guest.name} remembers:\n${unique.map(recall).join('\n')}` : '', 5);
  }
  parts.push({
    tier: 'must',
    label: 'new turn',
    slot: 'history',
    role: 'user',
    text:
      mode === 'impersonate'
        ? `${answering ? `${answering.text}\n\n` : ''}(Write ${youName}'s next message in the story: only ${youName}'s words and actions.)`
        : (answering?.text ?? `(${youName} waits. Continue the scene.)`),
    keep: 0,
  });
  // The card's post-history instructions come after the story, as its author meant them to.
  const afterHistory = mode === 'reply' ? fill((card?.post_history ?? '').replace(/\{\{\s*original\s*\}\}/gi, '')).trim() : '';
  if (afterHistory) parts.push({ tier: 'must', label: 'post-history instructions', slot: 'history', role: 'user', text: `[${afterHistory}]`, keep: 0 });
  // Last, so it weighs most: the player's standing instruction, which the model follows but never voices.
  if (drawer.directorNote.trim()) {
    parts.push({
      tier: 'must',
      label: "director's note",
      slot: 'history',
      role: 'user',
      text: `[Director's note, for the narrator only: follow it, never mention it. ${drawer.directorNote.trim()}]`,
      keep: 0,
    });
  }
  const assembled = assemblePrompt(parts, settings.narrativeBudget, count, framing);
  return { ...assembled, report: reportOf(assembled, settings.narrativeBudget, pinned, recalled) };
}


/** A card's system prompt in place of the app's frame, `{{original}}` standing for the app's; none keeps the app's. */
function cardFrame(systemPrompt: string, original: string, fill: (text: string) => string): string {
  if (!systemPrompt.trim()) return original;
  return fill(systemPrompt.replace(/\{\{\s*original\s*\}\}/gi, () => original));
}

/** Newest turns a lorebook may scan (a book's or an entry's scan depth reaches at most this far). */
const LORE_SCAN = 20;

/**
 * The lore that fires for a reply: the bot's card book and each lorebook attached to the chat,
 * scanned over the latest story, seeded by the turn it answers (a regenerate sees the same). Each
 * book keeps to its own budget; their entries go in together, in insertion order.
 */
function firedLore(db: Db, chatId: string, botId: string, recent: readonly TranscriptTurn[], count: TokenCounter): FiredEntry[] {
  const texts = recent.map((t) => t.text);
  const seed = recent.at(-1)?.turnId ?? botId;
  const own = lorebookForPrompt(db, { botId });
  const fired = own ? activateLore(own, texts, { seed, count }) : [];
  for (const lorebookId of attachedLorebooks(db, chatId)) {
    const book = lorebookForPrompt(db, { lorebookId });
    if (book) fired.push(...activateLore(book, texts, { seed: `${seed}:${lorebookId}`, count }));
  }
  return fired.sort((a, b) => a.entry.insertionOrder - b.entry.insertionOrder);
}

/** How much story time has passed: since this scene began, and between the last scene and this one. */
function storyTimeSoFar(drawer: ChatState): string {
  const scene = drawer.scene;
  if (!scene) return drawer.lastSceneEnded ? `The last scene ended ${storyTimeAgo(drawer.lastSceneEnded, drawer.fictionTime)}.` : '';
  const began = storyTimeSpan(scene.openedFictionTime, drawer.fictionTime);
  const gap = drawer.lastSceneEnded ? storyTimeSpan(drawer.lastSceneEnded, scene.openedFictionTime) : '';
  const between = gap === 'a moment' ? 'It follows straight on from the last scene.' : gap && `${gap[0]!.toUpperCase()}${gap.slice(1)} passed between the last scene and this one.`;
  return [began && `This scene began ${began} ago.`, between].filter(Boolean).join(' ');
}
