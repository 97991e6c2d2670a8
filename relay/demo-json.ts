/**
 * The demo model's answers to analysis calls: a value that satisfies the JSON Schema the prompt
 * carries (our classify() always includes one), filled with modest, plausible content.
 */
type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  format?: string;
  pattern?: string;
  default?: unknown;
  description?: string;
};

const FICTION_TIME = '1890-05-01T20:00:00';

function text(key: string, topic: string, schema: Schema): string {
  const lower = key.toLowerCase();
  let value: string;
  if (schema.format === 'date-time' || /time|date/.test(lower) || schema.pattern?.includes('\\d{4')) value = FICTION_TIME;
  else if (/summary/.test(lower) && /scene/i.test(schema.description ?? '')) value = `They talked a long while about ${topic}, and parted on good terms.`;
  else if (/summary|description/.test(lower)) value = 'Glad to see you again, and curious what brings you here.';
  // A property named for a person (a scene summary's "views"): one's view of them.
  else if (/^[A-Z]/.test(key)) value = `${key} is easier to read than before, and worth a little more trust.`;
  else if (/anchor/.test(lower)) value = 'Find out what the other is hiding.';
  else if (/name|place|title/.test(lower)) value = 'The Lantern Room';
  else if (/fact/.test(lower)) value = `Talked about ${topic}`;
  else if (/slot|where/.test(lower)) value = 'by the window';
  else if (/attention/.test(lower)) value = 'the conversation';
  else if (/weather/.test(lower)) value = 'clear and mild';
  else if (/posture/.test(lower)) value = 'sitting';
  else if (/verb|action/.test(lower)) value = 'talking';
  else if (/type|kind/.test(lower)) value = 'room';
  else value = topic;
  if (schema.maxLength !== undefined) value = value.slice(0, schema.maxLength);
  if (schema.minLength !== undefined && value.length < schema.minLength) value = value.padEnd(schema.minLength, '.');
  return value;
}

function number(schema: Schema, integer: boolean): number {
  const low = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : undefined);
  const high = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : undefined);
  // Small, positive changes read as "the scene went fine"; clamp into the declared range.
  let value = integer ? 1 : 1;
  if (low !== undefined && value < low) value = low;
  if (high !== undefined && value > high) value = high;
  return integer ? Math.round(value) : value;
}

export function instanceOf(schema: Schema, topic: string, key = ''): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) {
    // "room" carries voices more plausibly than "whisper"; everything else takes the first, safest value.
    if (/range/i.test(key) && schema.enum.includes('room')) return 'room';
    return schema.enum.find((v) => v !== null) ?? schema.enum[0];
  }
  const choices = schema.anyOf ?? schema.oneOf;
  if (choices?.length) {
    const nonNull = choices.find((c) => c.type !== 'null') ?? choices[0]!;
    return instanceOf(nonNull, topic, key);
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ['object'];
  const type = types.find((t) => t !== 'null') ?? 'null';
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [name, inner] of Object.entries(schema.properties ?? {})) out[name] = instanceOf(inner, topic, name);
      return out;
    }
    case 'array':
      // Hands are empty unless asked otherwise; lists the analysis reads get one modest entry.
      return Array.from({ length: /holding/i.test(key) ? (schema.minItems ?? 0) : Math.max(1, schema.minItems ?? 0) }, () =>
        instanceOf(schema.items ?? {}, topic, key),
      );
    case 'string':
      return text(key, topic, schema);
    case 'integer':
      return number(schema, true);
    case 'number':
      return number(schema, false);
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** The last ```json block in the prompt that looks like a JSON Schema. */
export function schemaInPrompt(prompt: string): Schema | undefined {
  const blocks = [...prompt.matchAll(/```(?:json)?\s*\n([\s\S]*?)\n```/g)].map((m) => m[1]!);
  for (const block of blocks.reverse()) {
    try {
      const parsed = JSON.parse(block) as Schema;
      if (parsed && typeof parsed === 'object' && (parsed.properties || parsed.type)) return parsed;
    } catch {
      // not JSON, keep looking
    }
  }
  return undefined;
}
