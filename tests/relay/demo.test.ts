import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRelay, type RunningRelay } from '../support/relay-harness.ts';

let relay: RunningRelay;
beforeEach(async () => {
  relay = await startRelay({ RELAY_UPSTREAM: 'http://127.0.0.1:9/v1' }, { demoDelayMs: 1 });
});
afterEach(() => relay.close());

describe('the built-in demo model (no key configured)', () => {
  it('says so in /api/health and lists models to pick from', async () => {
    expect(await (await fetch(`${relay.url}/api/health`)).json()).toMatchObject({ ok: true, mode: 'demo' });
    const models = await relay.client().models.list();
    expect(models.data.map((m) => m.id)).toContain('dphn/Dolphin-Mistral-24B-Venice-Edition');
  });

  it('streams prose, token by token, that reacts to the last user message', async () => {
    const stream = await relay.client().chat.completions.create({
      model: 'dphn/Dolphin-Mistral-24B-Venice-Edition',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are Mira, a ship captain.' },
        { role: 'user', content: '*I tighten the rigging* "Will the lighthouse keeper let us dock?"' },
      ],
    });
    const pieces: string[] = [];
    let usage: unknown;
    for await (const chunk of stream) {
      if (chunk.choices[0]?.delta.content) pieces.push(chunk.choices[0].delta.content);
      if (chunk.usage) usage = chunk.usage;
    }
    const text = pieces.join('');
    expect(pieces.length).toBeGreaterThan(20);
    expect(text).toMatch(/Mira/);
    expect(text).toMatch(/tighten the rigging|lighthouse|Will the lighthouse keeper/);
    expect(usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
  });

  it('speaks with the bot\'s name as the narrator prompt gives it, whatever its letters (issue 13)', async () => {
    for (const name of ['Captain Élodie Vance', '李娜']) {
      const reply = await relay.client().chat.completions.create({
        model: 'dphn/Dolphin-Mistral-24B-Venice-Edition',
        messages: [
          { role: 'system', content: `You are the narrator of an interactive story. You write ${name}'s words and actions and everything else in the world.` },
          { role: 'user', content: '"Hello?"' },
        ],
      });
      const text = reply.choices[0]?.message.content ?? '';
      expect(text, name).toContain(name);
      expect(text, name).not.toContain('Your companion');
    }
  });

  it('answers a JSON request with JSON that fits the schema in the prompt', async () => {
    const schema = {
      type: 'object',
      properties: {
        significance: { type: 'integer', minimum: 0, maximum: 3 },
        minutesPassed: { type: 'integer', minimum: 0, maximum: 600 },
        sceneEnded: { type: 'boolean' },
        reason: { type: 'string', enum: ['none', 'parting', 'time_skip'] },
        facts: { type: 'array', items: { type: 'string', maxLength: 80 } },
      },
      required: ['significance', 'minutesPassed', 'sceneEnded', 'reason', 'facts'],
    };
    const reply = await relay.client().chat.completions.create({
      model: 'NousResearch/Hermes-3-Llama-3.1-8B',
      response_format: { type: 'json_object' },
      messages: [{ role: 'user', content: `Analyse the turn about the lighthouse.\n\`\`\`json\n${JSON.stringify(schema)}\n\`\`\`` }],
    });
    const value = JSON.parse(reply.choices[0]!.message.content!);
    expect(value).toMatchObject({ significance: expect.any(Number), minutesPassed: expect.any(Number), sceneEnded: false, reason: 'none' });
    expect(value.significance).toBeGreaterThanOrEqual(0);
    expect(value.significance).toBeLessThanOrEqual(3);
    expect(value.facts.every((f: string) => typeof f === 'string' && f.length <= 80)).toBe(true);
  });
  it('fills the analysis\'s items plausibly: what the player takes is theirs, what they give goes to the other, a listed one changes hands', async () => {
    const schema = { type: 'object', properties: { items: { type: 'object', properties: { new: { type: 'array' }, changed: { type: 'array' } } } } };
    const analyse = async (line: string, listed = '') => {
      const reply = await relay.client().chat.completions.create({
        model: 'NousResearch/Hermes-3-Llama-3.1-8B',
        response_format: { type: 'json_object' },
        messages: [
          { role: 'system', content: `You keep the books.\nPresent:\n- Ada (the user's character)\n- Mira\n${listed}` },
          { role: 'user', content: `Latest turn:\nAda: ${line}\n\nMira nods.\n\`\`\`json\n${JSON.stringify(schema)}\n\`\`\`` },
        ],
      });
      return JSON.parse(reply.choices[0]!.message.content!).items;
    };
    expect(await analyse('*I pick up the old lantern and look around.*')).toEqual({ new: [{ name: 'old lantern', holder: 'Ada', where: 'in hand', state: '' }], changed: [] });
    expect(await analyse('"Here," *I hand you the silver key.*')).toEqual({ new: [{ name: 'silver key', holder: 'Mira', where: 'in hand', state: '' }], changed: [] });
    expect(await analyse('*I give her the silver key.*', 'Items:\nI1: silver key (Ada has it; in hand)')).toEqual({ new: [], changed: [{ item: 'I1', holder: 'Mira' }] });
    expect(await analyse('"Nice weather."')).toEqual({ new: [], changed: [] });
  });
});
