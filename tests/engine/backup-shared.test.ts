import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { rebuiltLines, sharedLines } from '../../src/worker/backup-delta.ts';
import { blobOf, checkBackupFile, gzipLines } from '../../src/worker/backup-streams.ts';
import { kickoffInput } from '../support/fixtures.ts';
import { openStory } from '../support/story.ts';

/** A day of play: a few exchanges in the chat. */
function play(story: Awaited<ReturnType<typeof openStory>>, day: number, turns = 5) {
  const { engine } = story;
  for (let i = 0; i < turns; i++) {
    engine.turns.finishTurn(engine.turns.beginTurn(story.chat, `"Day ${day}, line ${i}."`), { text: `Mira answers, day ${day}, reply ${i}.`, usage: null, truncated: false, reason: null, error: null });
  }
}

const snapshot = (story: Awaited<ReturnType<typeof openStory>>) => [...story.engine.backupLines()];
async function* each(lines: string[]): AsyncGenerator<string> {
  yield* lines;
}
async function collect(lines: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const line of lines) out.push(line);
  return out;
}
const gzSize = (lines: string[]) => gzipSync(lines.map((l) => `${l}\n`).join('')).length;
const LIMIT = 1e9;

describe('daily backups kept as what they differ by from the next newer one', () => {
  it('a day of play apart, a shared backup is a small part of the whole and rebuilds exactly, line for line', async () => {
    const story = await openStory();
    play(story, 1, 40);
    const monday = snapshot(story);
    play(story, 2);
    const tuesday = snapshot(story);

    const shared = (await sharedLines(each(monday), each(tuesday), 'tuesday', LIMIT))!;
    expect(JSON.parse(shared[0]!)).toMatchObject({ shared: 1, base: 'tuesday', baseEvents: tuesday.length - 2 });
    // Only the ids of the turns played since: a few lines where the whole has every event.
    expect(shared.length - 3).toBe(tuesday.length - monday.length);
    expect(gzSize(shared) * 4).toBeLessThan(gzSize(monday));
    expect(await collect(rebuiltLines(each(shared), each(tuesday)))).toEqual(monday);
    // It goes through the gzip file and the app's own check like any backup.
    const file = await blobOf(gzipLines(rebuiltLines(each(shared), each(tuesday))));
    expect(await checkBackupFile(story.engine, file)).toMatchObject({ events: monday.length - 2, chats: 1 });
  });

  it('rebuilds what a purge removed since, and a chain of dailies rebuilds each of them', async () => {
    const story = await openStory();
    const other = story.engine.startChat(story.bot, kickoffInput());
    play(story, 1);
    const first = snapshot(story);
    play(story, 2);
    story.engine.deleteChat(other);
    story.engine.purgeNow({ chatId: other });
    const second = snapshot(story);
    play(story, 3);
    const third = snapshot(story);
    expect(second.some((line) => line.includes(other))).toBe(true); // the purge event names it
    expect(third.filter((line) => line.includes(`"chat_id":"${other}"`))).toEqual([]);

    const secondShared = (await sharedLines(each(second), each(third), 'third', LIMIT))!;
    const firstShared = (await sharedLines(each(first), each(second), 'second', LIMIT))!;
    // The purged chat's events are in the older file's differences, to be put back.
    expect(firstShared.filter((line) => line.includes(`"chat_id":"${other}"`)).length).toBeGreaterThan(0);
    const secondRebuilt = () => rebuiltLines(each(secondShared), each(third));
    expect(await collect(secondRebuilt())).toEqual(second);
    expect(await collect(rebuiltLines(each(firstShared), secondRebuilt()))).toEqual(first);
  });

  it('a line written differently since (a migration) is put back as it was', async () => {
    const story = await openStory();
    play(story, 1);
    const older = snapshot(story);
    const newer = older.map((line, i) => (i === 3 ? line.replace('"ts":', '"ts":1') : line));
    const shared = (await sharedLines(each(older), each(newer), 'newer', LIMIT))!;
    expect(shared.slice(2, -1)).toEqual([JSON.stringify(JSON.parse(older[3]!).id), older[3]]); // left out, then put in as it was
    expect(await collect(rebuiltLines(each(shared), each(newer)))).toEqual(older);
  });

  it('is not made when the two are different stories (a restore between them)', async () => {
    const a = await openStory();
    play(a, 1, 10);
    const b = await openStory();
    play(b, 1, 10);
    const whole = snapshot(a);
    expect(await sharedLines(each(whole), each(snapshot(b)), 'b', gzSize(whole) * 2)).toBeNull();
  });

  it('refuses to rebuild from the wrong base, or from a damaged shared file, with a plain error', async () => {
    const story = await openStory();
    play(story, 1);
    const older = snapshot(story);
    play(story, 2);
    const newer = snapshot(story);
    play(story, 3);
    const later = snapshot(story);
    const shared = (await sharedLines(each(older), each(newer), 'newer', LIMIT))!;

    await expect(collect(rebuiltLines(each(shared), each(later)))).rejects.toThrow(/not the one it was made from|does not match/);
    const wrongLine = shared.map((line, i) => (i === shared.length - 2 ? line.replace(/.$/, 'x"') : line));
    await expect(collect(rebuiltLines(each(wrongLine), each(newer)))).rejects.toThrow(/shared backup/);
    const lost = [...shared.slice(0, 2), ...shared.slice(3)];
    await expect(collect(rebuiltLines(each(lost), each(newer)))).rejects.toThrow(/checksum|does not match/);
    await expect(collect(rebuiltLines(each(shared.slice(0, -1)), each(newer)))).rejects.toThrow(/cut short/);
  });
});
