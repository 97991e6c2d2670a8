import { z } from 'zod';

/** How the narrator samples its words; the same knobs globally (settings) and per chat (overrides). */
export const samplerFields = z.object({
  temperature: z.number().min(0, 'from 0').max(2, 'up to 2'),
  topP: z.number().min(0.01, 'above 0').max(1, 'up to 1'),
  minP: z.number().min(0, 'from 0').max(1, 'up to 1'),
  repetitionPenalty: z.number().min(0.5, 'from 0.5').max(2, 'up to 2'),
  maxTokens: z.number().int('a whole number').min(16, 'at least 16').max(4_096, 'up to 4096'),
});
export type Sampler = z.infer<typeof samplerFields>;

/** A chat's overrides: each knob set here wins over the global one; one left out follows it. */
export const samplerOverrides = samplerFields.partial();
export type SamplerOverrides = z.infer<typeof samplerOverrides>;

export const DEFAULT_SAMPLER: Sampler = { temperature: 0.9, topP: 1, minP: 0, repetitionPenalty: 1, maxTokens: 700 };

export const effectiveSampler = (global: Sampler, chat: SamplerOverrides | null): Sampler => ({ ...global, ...(chat ?? {}) });
