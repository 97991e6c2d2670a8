import { describe, expect, it } from 'vitest';
import { createModelLimits } from '../../src/engine/leader/model-limits.ts';
import { contextLengthOf } from '../../src/engine/llm/model-info.ts';
import { nodeTokens } from '../support/family-tokenizers.ts';
import { json } from '../support/fake-upstream.ts';
import { narratorOnly, testLeader } from '../support/leader.ts';
import { relayedUpstreams } from '../support/relayed-upstream.ts';
import { openStory } from '../support/story.ts';

// The model's own limits (issue 35, part 4): the budget sized from the context its server lists.
const relayed = relayedUpstreams();

const NARRATOR = 'dphn/Dolphin-Mistral-24B-Venice-Edition';
/** A model no shipped tokenizer claims. */
const NARRATOR_UNKNOWN = 'deepseek-ai/DeepSeek-V3-0324';

async function withModels(models: unknown[]) {
  const { llm } = await relayed((upstream) =>
    upstream.setFallback((req, res) => {
      if (req.path === '/v1/models') return json(res, 200, { object: 'list', data: models });
      if (req.path === '/v1/plan') return json(res, 404, { error: 'no plan here' });
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.end(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'Rain.' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`);
    }),
  );
  return llm;
}

describe("the model's own limits", () => {
  it('size the budget from the context the server lists for the model, and the inspector is told', async () => {
    const llm = await withModels([{ id: NARRATOR, context_length: 16_384 }, { id: 'other', context_length: 4_096 }]);
    const { engine, chat } = await openStory();
    const { leader, client } = testLeader(engine, narratorOnly(llm));
    const { turnId } = await client.sendTurn(chat, '"Rain?"');
    await leader.idle();
    // 16,384 less the reply's 700 tokens, less a tenth for counts that are estimates.
    expect(await client.replyPrompt(chat, turnId)).toMatchObject({ budget: { hard: 14_115, soft: 10_586 }, contextLength: 16_384 });
  });

  it('leave the budget to Settings when the player chose so, or the server does not say', async () => {
    const llm = await withModels([{ id: NARRATOR, context_length: 16_384 }]);
    const { engine, chat } = await openStory();
    engine.changeSettings({ budgetFromModel: false });
    const { leader, client } = testLeader(engine, narratorOnly(llm));
    const { turnId } = await client.sendTurn(chat, '"Rain?"');
    await leader.idle();
    const report = await client.replyPrompt(chat, turnId);
    expect(report).toMatchObject({ budget: { hard: 8_000, soft: 6_000 } });
    expect(report!.contextLength).toBeUndefined();

    const quiet = await withModels([{ id: NARRATOR }]);
    const second = await openStory();
    const run = testLeader(second.engine, narratorOnly(quiet));
    const { turnId: next } = await run.client.sendTurn(second.chat, '"Rain?"');
    await run.leader.idle();
    expect(await run.client.replyPrompt(second.chat, next)).toMatchObject({ budget: { hard: 8_000, soft: 6_000 } });
  });

  it('read the context under each server\'s name for it, and never keep a reply waiting on a slow list', async () => {
    expect(contextLengthOf({ id: 'a', context_length: 32_768 })).toBe(32_768);
    expect(contextLengthOf({ id: 'vllm', max_model_len: 8_192 })).toBe(8_192);
    expect(contextLengthOf({ id: 'llama.cpp', meta: { n_ctx: 8_192, n_ctx_train: 131_072 } })).toBe(8_192);
    // The length it was trained to is not what the server gives it.
    expect(contextLengthOf({ id: 'llama.cpp', meta: { n_ctx_train: 131_072 } })).toBeNull();
    expect(contextLengthOf({ id: 'none', context_length: 'big' })).toBeNull();
    let asked = 0;
    const slow = createModelLimits(
      { complete: async () => { throw new Error('unused'); }, stream: async function* () {}, models: () => (asked++, new Promise(() => {})) },
      Date.now,
      { waitMs: 50 },
    );
    expect(await slow.contextOf(NARRATOR)).toBeNull();
    expect(await slow.contextOf(NARRATOR)).toBeNull();
    expect(asked).toBe(1); // a list that did not come is not asked again for a while
  });

  it("count with the model family's own tokenizer, named by its id or its listed class, and size the budget with less margin for it", async () => {
    const euryale = 'Sao10K/L3.3-70B-Euryale-v2.3';
    const rocinante = 'TheDrummer/Rocinante-12B-v1.1';
    const llm = await withModels([
      { id: euryale, context_length: 16_384, model_class: 'llama33-70b-16k' },
      { id: rocinante, context_length: 16_384, model_class: 'mistral-nemo-12b-lc' },
      { id: NARRATOR_UNKNOWN, context_length: 16_384 },
    ]);
    const line = '"ミラ、銀の鍵はどこで見つかったの？ The lighthouse, or the wreck?"';
    const reportFor = async (model: string) => {
      const { engine, chat } = await openStory();
      engine.changeSettings({ narrativeModel: model });
      const { leader, client } = testLeader(engine, narratorOnly(llm), { familyTokenizers: true });
      const { turnId } = await client.sendTurn(chat, line);
      await leader.idle();
      return (await client.replyPrompt(chat, turnId))!;
    };
    const lineCost = (report: { parts: { label: string; tokens: number }[] }) => report.parts.find((p) => p.label === 'new turn')?.tokens;

    const llama = await reportFor(euryale);
    // 16,384 less the reply's 700 tokens, less a twentieth: an exact count needs margin only for the template.
    expect(llama).toMatchObject({ countedWith: 'llama3', budget: { hard: 14_899, soft: 11_174 }, contextLength: 16_384 });
    const nemo = await reportFor(rocinante);
    expect(nemo).toMatchObject({ countedWith: 'mistral-nemo', budget: { hard: 14_899 } });
    const other = await reportFor(NARRATOR_UNKNOWN);
    expect(other).toMatchObject({ countedWith: 'cl100k', budget: { hard: 14_115, soft: 10_586 } });
    // The player's line costs what each tokenizer says, and its template's framing: Llama 3's
    // header and end (5), Mistral's [INST] and [/INST] (2), 4 where the template is unknown.
    expect(lineCost(llama)).toBe((await nodeTokens('llama3'))(line) + 5);
    expect(lineCost(nemo)).toBe((await nodeTokens('mistral-nemo'))(line) + 2);
    expect(lineCost(other)).toBe((await nodeTokens(null))(line) + 4);
    expect(new Set([lineCost(llama), lineCost(nemo), lineCost(other)]).size).toBe(3);
  });

  it("take llama.cpp's served context from its /props, never the length the model was trained to", async () => {
    const llamaCpp = (props: boolean) =>
      relayed((upstream) =>
        upstream.setFallback((req, res) => {
          if (req.path === '/v1/models') return json(res, 200, { object: 'list', data: [{ id: 'llama-3.1-8b-q4.gguf', object: 'model', owned_by: 'llamacpp', meta: { n_ctx_train: 131_072, n_vocab: 128_256 } }] });
          if (req.path === '/props' && props) return json(res, 200, { default_generation_settings: { n_ctx: 8_192 }, total_slots: 1 });
          return json(res, 404, { error: 'not here' });
        }),
      );
    const served = await llamaCpp(true);
    expect(await served.llm.models!()).toEqual([{ id: 'llama-3.1-8b-q4.gguf', contextLength: 8_192, modelClass: null }]);
    // Without /props the trained length is not taken: the budget stays with Settings.
    const silent = await llamaCpp(false);
    expect(await silent.llm.models!()).toEqual([{ id: 'llama-3.1-8b-q4.gguf', contextLength: null, modelClass: null }]);
  });
});
