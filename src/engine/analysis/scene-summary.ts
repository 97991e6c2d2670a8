import { z } from 'zod';
import { storyLanguage } from '../queries/story-language.ts';
import { languageInstruction } from '../text/language.ts';
import type { Db } from '../db/port.ts';
import type { LogContext } from '../log/context.ts';
import { appendEvents } from '../log/append.ts';
import type { EventDraft } from '../log/draft.ts';
import type { Settings } from '../settings/settings.ts';
import { fitToTokens, type TokenCounter } from '../turn/tokens.ts';
import { castOf } from './cast.ts';
import { idOfSeq } from '../log/visibility.ts';

/** Memories this significant stay whole beside the scene's summary instead of being folded into it. */
export const KEEP_WHOLE_SIGNIFICANCE = 2;

export interface SceneToSummarize {
  chatId: string;
  sceneId: string;
  /** The scene_closed event: the summary's events are caused by it. */
  closedSeq: number;
  ownerId: string;
  ownerName: string;
  /** The owner's memories of the scene, oldest first. */
  memories: { id: string; summary: string; significance: number; pinned: boolean; fictionTime: string }[];
  /** Everyone else in the scene, with the owner's current view of them. */
  others: { ref: string; name: string; key: string; summary: string; affinity: number; trust: number }[];
  /** What the prompt says of the story's language (empty for English). */
  language: string;
}

export function sceneSummarySchema(otherKeys: readonly string[]) {
  return z.object({
    summary: z.string().min(1).describe('The memory of the whole scene from the point of view given: 2 to 5 sentences, past tense, third person.'),
    views: z
      .object(Object.fromEntries(otherKeys.map((key) => [key, z.string().optional()])))
      .describe("For each person, the rewritten overall view of them (1 to 3 sentences), building on the previous one."),
  });
}

/** One witness's closed scene still waiting for its summary, or undefined when it is done or gone. */
export function sceneToSummarize(db: Db, chatId: string, sceneId: string, ownerId: string): SceneToSummarize | undefined {
  const scene = db.get<{ closed_seq: number | null; participants: string }>('SELECT closed_seq, participants FROM scenes WHERE id = ? AND chat_id = ?', [sceneId, chatId]);
  if (!scene || scene.closed_seq === null) return undefined;
  if (db.get('SELECT 1 AS x FROM scene_summaries WHERE chat_id = ? AND scene_id = ? AND owner_id = ?', [chatId, sceneId, ownerId])) return undefined;
  const cast = castOf(db, chatId);
  if (!cast) return undefined;
  const memories = db
    .all<{ id: string; summary: string; significance: number; pinned: number; fiction_time: string }>(
      'SELECT id, summary, significance, pinned, fiction_time FROM memories WHERE scene_key = id_key(?) AND owner_key = id_key(?) AND chat_id = ? ORDER BY created_seq',
      [sceneId, ownerId, chatId],
    )
    .map((m) => ({ id: m.id, summary: m.summary, significance: m.significance, pinned: m.pinned === 1, fictionTime: m.fiction_time }));
  if (memories.length === 0) return undefined;
  const participants = (JSON.parse(scene.participants) as string[]).filter((ref) => ref !== ownerId);
  const others = participants.map((ref) => {
    const edge = db.get<{ summary: string; affinity: number; trust: number }>(
      'SELECT summary, affinity, trust FROM edges WHERE chat_id = ? AND source = ? AND target = ?',
      [chatId, ownerId, ref],
    );
    const name = cast.nameOf(ref);
    return { ref, name, key: name, summary: edge?.summary ?? '', affinity: edge?.affinity ?? 50, trust: edge?.trust ?? 50 };
  });
  // Two people of one name still need two keys.
  for (const other of others) if (others.filter((o) => o.name === other.name).length > 1) other.key = `${other.name} (${other.ref.slice(0, 4)})`;
  const language = languageInstruction(storyLanguage(db, chatId), 'the memory and the views');
  return { chatId, sceneId, closedSeq: scene.closed_seq, ownerId, ownerName: cast.nameOf(ownerId), memories, others, language };
}

export function sceneSummaryPrompt(scene: SceneToSummarize, settings: Settings, count: TokenCounter): { system: string; user: string } {
  const views = scene.others
    .map((o) => `- ${o.key}: affinity ${Math.round(o.affinity)}/100, trust ${Math.round(o.trust)}/100. Previous view: ${o.summary || '(none yet)'}`)
    .join('\n');
  const system =
    `A scene of an interactive story has ended. Write ${scene.ownerName}'s memory of it: what happened, what was said that matters, ` +
    `how ${scene.ownerName} felt, from ${scene.ownerName}'s point of view, knowing only what ${scene.ownerName} witnessed below. ` +
    `Then rewrite ${scene.ownerName}'s overall view of each other person, from the previous view and this scene.${scene.language ? ` ${scene.language}` : ''}\n${views}`;
  const schemaTokens = count(JSON.stringify(z.toJSONSchema(sceneSummarySchema(scene.others.map((o) => o.key)), { unrepresentable: 'any' })));
  let room = settings.classifierBudget - count(system) - schemaTokens - 80;
  // The end of a scene explains its close; when it is too long, the oldest moments give way.
  const lines: string[] = [];
  for (const memory of [...scene.memories].reverse()) {
    const fitted = fitToTokens(memory.summary, room, count, 'end');
    if (!fitted) break;
    lines.unshift(fitted);
    room -= count(fitted) + 2;
    if (fitted !== memory.summary) break;
  }
  const omitted = lines.length < scene.memories.length ? '(The start of the scene is left out.)\n\n' : '';
  return { system, user: `${omitted}${lines.join('\n\n')}` };
}

/**
 * The witness's summary replaces the scene's everyday memories (rewritten into the first, the rest
 * absorbed); pinned and significant ones stay whole beside it. The views become edge summaries.
 * A failed call (value null) writes only the marker: the turn memories stay as they were.
 */
export function recordSceneSummary(
  ctx: LogContext,
  chatId: string,
  sceneId: string,
  ownerId: string,
  value: { summary: string; views: Record<string, string | undefined> } | null,
): boolean {
  const { db } = ctx;
  return db.transaction(() => {
    const scene = sceneToSummarize(db, chatId, sceneId, ownerId);
    if (!scene) return false;
    const drafts: EventDraft[] = [];
    const summary = value?.summary.trim().slice(0, 4_000);
    if (value && summary) {
      const everyday = scene.memories.filter((m) => m.significance < KEEP_WHOLE_SIGNIFICANCE && !m.pinned);
      const [into, ...absorbed] = everyday;
      if (into) {
        drafts.push({ kind: 'memory_summary_rewritten', chatId, payload: { memoryId: into.id, summary, absorbs: absorbed.map((m) => m.id) } });
      } else {
        const seen = db.get<{ you: number; host: number; guest: number }>(
          `SELECT max(witness_you) AS you, max(witness_host) AS host, max(witness_guest) AS guest
           FROM memories WHERE scene_key = id_key(?) AND owner_key = id_key(?) AND chat_id = ?`,
          [sceneId, ownerId, chatId],
        )!;
        drafts.push({
          kind: 'memory_written',
          chatId,
          payload: {
            memoryId: ctx.newId(),
            ownerId,
            sceneId,
            summary,
            witness: { you: seen.you === 1, host: seen.host === 1, guest: seen.guest === 1 },
            fictionTime: scene.memories.at(-1)!.fictionTime,
            source: 'witnessed',
            reliability: 1,
            significance: 1,
            pinned: false,
            autoPinned: false,
          },
        });
      }
      for (const other of scene.others) {
        const view = value.views[other.key]?.trim().slice(0, 4_000);
        if (view) drafts.push({ kind: 'edge_summary_rewritten', chatId, payload: { source: ownerId, target: other.ref, summary: view } });
      }
    }
    drafts.push({ kind: 'scene_summarized', chatId, payload: { sceneId, ownerId, ok: Boolean(value && summary) } });
    appendEvents(ctx, drafts.map((d) => ({ ...d, causeId: idOfSeq(ctx.db, scene.closedSeq) ?? null })));
    return true;
  });
}
