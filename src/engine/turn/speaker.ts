import type { Db } from '../db/port.ts';
import { castOf, type CastMember } from '../analysis/cast.ts';

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Who a reply belongs to when guests are present: the bot present whose name comes first in it
 * (its full name, or its first word: "Theo" for "Theo Marsh"), since the narrator names whoever
 * speaks or acts first. With nobody named, or nobody but the host present, it is the host's.
 */
export function speakerOf(db: Db, chatId: string, text: string, host: string): string {
  const bots = castOf(db, chatId)?.present.filter((m) => m.role !== 'you') ?? [];
  if (bots.length < 2) return host;
  return firstNamed(bots, text) ?? host;
}

/** Of these bots, the one whose name (its full name, or its first word) comes first in `text`. */
export function firstNamed(bots: readonly Pick<CastMember, 'ref' | 'name'>[], text: string): string | undefined {
  let best: { ref: string; at: number } | null = null;
  for (const bot of bots) {
    const names = [...new Set([bot.name, bot.name.split(/\s+/)[0]!])].filter((n) => n.length > 1);
    for (const name of names) {
      const at = text.search(new RegExp(`(?<![\\p{L}\\p{N}])${escape(name)}(?![\\p{L}\\p{N}])`, 'u'));
      if (at >= 0 && (best === null || at < best.at)) best = { ref: bot.ref, at };
    }
  }
  return best?.ref;
}
