import { describe, expect, it } from 'vitest';
import type { AnalysisJob } from '../../src/engine/analysis/jobs.ts';
import { AnalysisQueue } from '../../src/engine/leader/analysis-queue.ts';

const job = (chatId: string, seq: number): AnalysisJob => ({ type: 'turn', chatId, seq, key: `turn:${seq}` });

describe('the analysis queue', () => {
  it("after a change reads only the changed chats' jobs, and a chat left waiting for a slot starts when one frees", async () => {
    const waiting = new Map<string, AnalysisJob[]>([
      ['a', [job('a', 1)]],
      ['b', [job('b', 2)]],
      ['c', [job('c', 3)]],
    ]);
    const read: string[] = [];
    const ran: string[] = [];
    const queue = new AnalysisQueue({
      pending: (chatId) => {
        read.push(chatId ?? 'every chat');
        return chatId ? (waiting.get(chatId) ?? []) : [...waiting.values()].flat();
      },
      run: async (one) => {
        ran.push(one.chatId);
        await new Promise((r) => setTimeout(r, 5));
        waiting.set(one.chatId, []);
        return true;
      },
      committed: () => {},
      maxChats: 1,
    });

    queue.kick(['b']);
    expect(read).toEqual(['b']);
    // Chat b is busy and the one slot is taken: chat c waits, and is not read for a change in b.
    queue.kick(['b', 'c']);
    expect(read.filter((chat) => chat === 'a')).toEqual([]);
    await queue.idle();
    await new Promise((r) => setTimeout(r, 0));
    await queue.idle();
    // The slot freed: every chat was looked at again, and the others' jobs ran.
    expect(read).toContain('every chat');
    expect(ran.sort()).toEqual(['a', 'b', 'c']);
  });
});
