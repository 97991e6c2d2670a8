import { For } from 'solid-js';
import type { Sampler } from '../engine/for-ui.ts';
import { t } from './i18n/index.ts';

/** The sampler's knobs as form fields, named as players know them from other apps. */
export const SAMPLER_KNOBS: { key: keyof Sampler; step: string; min: number; max: number }[] = [
  { key: 'temperature', step: '0.05', min: 0, max: 2 },
  { key: 'topP', step: '0.01', min: 0.01, max: 1 },
  { key: 'minP', step: '0.01', min: 0, max: 1 },
  { key: 'repetitionPenalty', step: '0.01', min: 0.5, max: 2 },
  { key: 'maxTokens', step: '1', min: 16, max: 4096 },
];

/**
 * One number field per knob, named `sampler.<key>`. `value` fills a field; `placeholder` shows what
 * an empty field follows (a chat's knobs left empty follow the settings).
 */
export function SamplerFields(props: { value: Partial<Sampler>; placeholder?: Sampler }) {
  return (
    <div class="row sampler-fields">
      <For each={SAMPLER_KNOBS}>
        {(knob) => (
          <label>
            {t(`sampler.${knob.key}`)}
            <input
              name={`sampler.${knob.key}`}
              type="number"
              step={knob.step}
              min={knob.min}
              max={knob.max}
              value={props.value[knob.key] ?? ''}
              placeholder={props.placeholder ? String(props.placeholder[knob.key]) : undefined}
            />
          </label>
        )}
      </For>
    </div>
  );
}

/** The knobs a form holds: each filled field as a number, an empty one left out. */
export function samplerFromForm(data: FormData): Partial<Record<keyof Sampler, number>> {
  const knobs: Partial<Record<keyof Sampler, number>> = {};
  for (const { key } of SAMPLER_KNOBS) {
    const raw = String(data.get(`sampler.${key}`) ?? '').trim();
    if (raw !== '') knobs[key] = Number(raw);
  }
  return knobs;
}
