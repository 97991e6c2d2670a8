/** A model as the relay lists it: Featherless adds fields beyond the id, other servers may not. */
export interface ListedModel {
  id: string;
  [key: string]: unknown;
}

/**
 * How big a model is, for picking one: a parameter count the server gives, else the size its name
 * carries ("Mistral-24B" → 24B, "Mixtral-8x7B" → 8x7B), else nothing.
 */
export function modelSize(model: ListedModel): string | null {
  for (const field of ['parameter_count', 'parameters', 'num_parameters']) {
    const value = model[field];
    if (typeof value === 'number' && value > 0) return value >= 1e9 ? `${Math.round(value / 1e8) / 10}B` : `${Math.round(value / 1e6)}M`;
  }
  const name = model.id.split('/').at(-1) ?? model.id;
  const match = /(?:^|[^a-z0-9.])(\d+x\d+(?:\.\d+)?|\d+(?:\.\d+)?)\s?([bm])(?![a-z0-9])/i.exec(name);
  return match ? `${match[1]}${match[2]!.toUpperCase()}` : null;
}

/** "Mistral-Small-24B · 24B": the label a picker shows. */
export const modelLabel = (model: ListedModel) => {
  const size = modelSize(model);
  return size ? `${model.id} · ${size}` : model.id;
};
