import type { CountedWith, TokenizerFamily } from '../engine/turn/tokenizer-family.ts';
import { estimateTokens, type TokenCounter } from '../engine/turn/tokens.ts';
import { tokenHelper } from './token-helper.ts';

/**
 * The leader's token counters. A Send never waits for a tokenizer: a helper worker counts once it
 * is running (started in a quiet moment, and each family's tokenizer on its first text); until
 * then lengths are estimated, a little high. Kept across leaderships of this tab.
 */
export class TokenizerService {
  private helper: ReturnType<typeof tokenHelper> | undefined;

  readonly tokens = async (family?: TokenizerFamily | null): Promise<TokenCounter> => this.helper?.counterFor(family ?? 'cl100k').count ?? estimateTokens;

  readonly countedWith = (family: TokenizerFamily | null): CountedWith => this.helper?.counterFor(family ?? 'cl100k').countedWith() ?? 'estimate';

  get started(): boolean {
    return this.helper !== undefined;
  }

  start(): void {
    this.helper ??= tokenHelper();
    // cl100k counts what no family claims (the analysis, other models): built now, while all is quiet.
    this.helper.counterFor('cl100k').count('');
  }
}
