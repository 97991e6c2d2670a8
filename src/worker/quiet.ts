import type { Leader } from '../engine/leader/leader.ts';

/** How long the leader must have run no call, streamed no reply and analysed nothing for `whenQuiet`. */
export const QUIET_MS = 1_500;

/**
 * Resolves once this leader has run no call, streamed no reply and analysed nothing for a while
 * (false if it stopped leading first). For work that takes the better part of a second: the
 * tokenizer helper (its megabyte of script and its encoder) and the daily backup (the whole log,
 * gzipped). Started with the tab, the helper slowed the first screen by a tenth of a second;
 * started on a timer, either landed in the middle of a reply sent just after the page opened and
 * held its first token back for a second (two cores: that work, the stream and the page).
 */
export async function whenQuiet(leader: Leader, still: { leading: () => Leader | undefined; lastActivity: () => number }): Promise<boolean> {
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    if (still.leading() !== leader) return false;
    const quiet = Date.now() - still.lastActivity() >= QUIET_MS;
    const idle = await Promise.race([leader.idle().then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 0))]);
    if (quiet && idle && still.leading() === leader) return true;
  }
}
