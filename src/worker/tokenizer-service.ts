import { estimateTokens, type TokenCounter } from '../engine/turn/tokens.ts';
import { helperTokenCounter } from './token-helper.ts';

/**
 * The leader's token counter. A Send never waits for the tokenizer: a helper worker counts once it
 * is running (started in a quiet moment); until then lengths are estimated, a little high. Kept
 * across leaderships of this tab.
 */
export class TokenizerService {
  private counter: TokenCounter | undefined;

  readonly tokens = async (): Promise<TokenCounter> => this.counter ?? estimateTokens;

  get started(): boolean {
    return this.counter !== undefined;
  }

  start(): void {
    this.counter ??= helperTokenCounter();
  }
}
