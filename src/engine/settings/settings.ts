import { z } from 'zod';
import type { Db } from '../db/port.ts';
import { defineEvent } from '../events/define.ts';
import { DEFAULT_SAMPLER, samplerFields } from './sampler.ts';

const modelId = z.string().trim().min(1, 'pick a model').max(200);

const settingsFields = z.object({
    narrativeModel: modelId,
    classifierModel: modelId,
    classifierFallbacks: z.array(modelId).max(5),
    /** What opens an out-of-character aside; the closing marker mirrors it (`((` -> `))`). */
    oocMarker: z.string().trim().min(1).max(4).regex(/^[^\w\s"*]+$/, 'use punctuation, not letters, quotes or *'),
    retrievalK: z.number().int().min(1).max(20),
    narrativeBudget: z.object({ hard: z.number().int().min(1_000).max(128_000), soft: z.number().int().min(500).max(128_000) }),
    classifierBudget: z.number().int().min(500).max(32_000),
    classifierTimeoutMs: z.number().int().min(1_000).max(120_000),
    /** How the narrator samples, for every chat that does not set its own. */
    sampler: samplerFields,
    /** Where a reply ends besides the names at a line's start ("\n" in one is a new line). */
    stopStrings: z.array(z.string().max(100)).max(20),
    /** Size the narrator's budget from the model's context where its server says it; else (or off) the budget above. */
    budgetFromModel: z.boolean(),
});

export const settingsSchema = settingsFields.refine((s) => s.narrativeBudget.soft <= s.narrativeBudget.hard, {
  message: 'the soft budget must not exceed the hard one',
  path: ['narrativeBudget', 'soft'],
});
export type Settings = z.infer<typeof settingsSchema>;

export const DEFAULT_SETTINGS: Settings = {
  narrativeModel: 'dphn/Dolphin-Mistral-24B-Venice-Edition',
  classifierModel: 'NousResearch/Hermes-3-Llama-3.1-8B',
  classifierFallbacks: ['cognitivecomputations/dolphin-2.9.4-llama3-8b', 'mlabonne/Meta-Llama-3.1-8B-Instruct-abliterated'],
  oocMarker: '((',
  retrievalK: 4,
  narrativeBudget: { hard: 8_000, soft: 6_000 },
  classifierBudget: 4_000,
  classifierTimeoutMs: 10_000,
  sampler: DEFAULT_SAMPLER,
  stopStrings: [],
  budgetFromModel: true,
};

/** The settings a change touched. The command checks the merged whole before appending. */
export const settingsChanged = defineEvent({
  kind: 'settings_changed',
  writes: ['settings'],
  scope: 'global',
  // Each value is checked by its own rule, so a backup cannot smuggle in a setting the form would
  // refuse. Keys this version does not know are dropped (a setting an older version had).
  schema: z.object({ patch: settingsFields.partial() }).refine((p) => Object.keys(p.patch).length > 0, 'nothing changed'),
  apply(db, { seq, payload }) {
    for (const [key, value] of Object.entries(payload.patch)) {
      if (!(key in DEFAULT_SETTINGS)) continue;
      db.run(
        `INSERT INTO settings (key, value, updated_seq) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_seq = excluded.updated_seq`,
        [key, JSON.stringify(value), seq],
      );
    }
  },
});

export function readSettings(db: Db): Settings {
  const stored = Object.fromEntries(
    db.all<{ key: string; value: string }>('SELECT key, value FROM settings').map((r) => [r.key, JSON.parse(r.value) as unknown]),
  );
  const merged = settingsSchema.safeParse({ ...DEFAULT_SETTINGS, ...stored });
  if (merged.success) return merged.data;
  // Stored values passed this schema when written; if a later version tightened it, fall back per
  // key: each stored value is kept if the whole stays valid with it, so one bad value resets one setting.
  let settings = DEFAULT_SETTINGS;
  for (const [key, value] of Object.entries(stored)) {
    if (!(key in DEFAULT_SETTINGS)) continue;
    const tried = settingsSchema.safeParse({ ...settings, [key]: value });
    if (tried.success) settings = tried.data;
  }
  return settings;
}

export class SettingsError extends Error {
  constructor(readonly issues: readonly { path: string; message: string }[]) {
    super(`Invalid settings: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`);
    this.name = 'SettingsError';
  }
}

/** Validates a change against the whole settings it would produce; returns the patch to store. */
export function checkSettingsPatch(current: Settings, patch: Partial<Settings>): Partial<Settings> {
  const unknownKeys = Object.keys(patch).filter((k) => !(k in DEFAULT_SETTINGS));
  if (unknownKeys.length) throw new SettingsError(unknownKeys.map((k) => ({ path: k, message: 'not a setting' })));
  const parsed = settingsSchema.safeParse({ ...current, ...patch });
  if (!parsed.success) {
    throw new SettingsError(parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })));
  }
  return Object.fromEntries(Object.keys(patch).map((k) => [k, parsed.data[k as keyof Settings]])) as Partial<Settings>;
}
