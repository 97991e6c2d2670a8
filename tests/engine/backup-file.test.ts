import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { checkBackupFile, gzipLines, restoreBackupFile } from '../../src/worker/backup-streams.ts';
import { dumpProjections } from '../support/dump.ts';
import { draft } from '../support/fixtures.ts';
import { openTestEngine } from '../support/sqlite.ts';

async function storyEngine(text = 'one') {
  const { engine, db } = await openTestEngine();
  const bot = engine.newId();
  const chat = engine.newId();
  engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
  const first = engine.append([draft.userTurn(chat, engine.newId(), text), draft.memory(chat, engine.newId(), bot)]);
  engine.append([draft.userTurn(chat, engine.newId(), 'two'), draft.edge(chat, bot, 'you', { affinityDelta: 9 })]);
  engine.rewind(chat, first[0]!.seq + 2);
  engine.changeSettings({ retrievalK: 6 });
  return { engine, db, bot, chat };
}

async function fileOf(engine: Awaited<ReturnType<typeof storyEngine>>['engine']): Promise<Uint8Array> {
  return new Uint8Array(await new Response(gzipLines(engine.backupLines())).arrayBuffer());
}
const blob = (bytes: Uint8Array) => new Blob([bytes as Uint8Array<ArrayBuffer>]);
const linesOf = (bytes: Uint8Array) => gunzipSync(bytes).toString('utf8').split('\n').filter(Boolean);
const fromLines = (lines: string[]) => new Uint8Array(gzipSync(`${lines.map((l) => `${l}\n`).join('')}`));
/** The lines with a trailer made for them: count and checksum right, whatever the events say. */
function resealed(lines: string[]): string[] {
  const events = lines.slice(1, -1);
  const hash = createHash('sha256');
  for (const line of events) hash.update(`${line}\n`);
  return [lines[0]!, ...events, JSON.stringify({ end: true, events: events.length, sha256: hash.digest('hex') })];
}

describe('the backup file (format 3: gzip, a line per event, a checksummed trailer)', () => {
  it('round-trips every table, and a restore replaces what was there', async () => {
    const source = await storyEngine();
    const bytes = await fileOf(source.engine);
    expect([...bytes.slice(0, 2)]).toEqual([0x1f, 0x8b]);
    const lines = linesOf(bytes);
    expect(JSON.parse(lines[0]!)).toMatchObject({ format: 'roleplay-engine/event-log', version: 3, database: source.engine.identify().dbId });
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({ end: true, events: source.engine.exportLog().events.length });

    const target = await storyEngine('something else entirely');
    expect(await checkBackupFile(target.engine, blob(bytes))).toMatchObject({ version: 3, events: lines.length - 2, bots: 1, chats: 1, turns: 2 });
    await restoreBackupFile(target.engine, blob(bytes));
    expect(dumpProjections(target.db)).toEqual(dumpProjections(source.db));
    expect(target.engine.exportLog().events).toEqual(source.engine.exportLog().events);
    expect(target.engine.settings().retrievalK).toBe(6);
    // The log is guarded again after the swap.
    expect(() => target.db.run('DELETE FROM events')).toThrow(/never deleted/);
  });

  it('still restores the JSON backups of earlier versions', async () => {
    const source = await storyEngine();
    const json = new TextEncoder().encode(JSON.stringify(source.engine.exportLog()));
    const target = await storyEngine('other');
    expect(await checkBackupFile(target.engine, blob(json))).toMatchObject({ version: 2, bots: 1, chats: 1 });
    await restoreBackupFile(target.engine, blob(json));
    expect(dumpProjections(target.db)).toEqual(dumpProjections(source.db));
  });

  it('refuses every kind of damage with a message naming what and where, and leaves the database byte for byte as it was', async () => {
    const source = await storyEngine();
    const good = await fileOf(source.engine);
    const lines = linesOf(good);
    const event = (n: number) => JSON.parse(lines[n]!) as Record<string, unknown>;
    const withEvent = (n: number, change: (e: Record<string, unknown>) => Record<string, unknown>) => lines.map((l, i) => (i === n ? JSON.stringify(change(event(n))) : l));
    const flipped = good.slice();
    flipped[Math.floor(flipped.length / 2)]! ^= 0xff;
    const cases: [string, Uint8Array, RegExp][] = [
      ['cut short mid-stream', good.slice(0, Math.floor(good.length * 0.6)), /damaged|cut short/],
      ['cut short at a line', fromLines(lines.slice(0, -1)), /without its end-of-backup line: the file was cut short/],
      ['a changed event', fromLines(withEvent(3, (e) => ({ ...e, ts: Number(e.ts) + 1 }))), new RegExp(`Line ${lines.length} of the backup has a checksum that does not match`)],
      ['bad gzip', flipped, /damaged/],
      ['an event failing its schema', fromLines(withEvent(2, (e) => ({ ...e, payload: JSON.stringify({ botId: 'x' }) }))), /Line 3 of the backup \(event 2, bot_authored\) is invalid: .*botId/],
      ['a reference to a missing event', fromLines(withEvent(5, (e) => ({ ...e, cause_id: '01890000-0000-7000-8000-000000000999' }))), /Line 6 of the backup \(event 5, .*\) points its cause at 01890000-0000-7000-8000-000000000999/],
      ['a repeated id', fromLines(withEvent(4, (e) => ({ ...e, id: event(3).id }))), /Line 5 of the backup \(event 4, .*\) repeats the id/],
      ['a __proto__ key', fromLines(withEvent(1, (e) => ({ ...e, payload: (e.payload as string).replace('{', '{"__proto__":{"polluted":true},') }))), /Line 2 of the backup .*"__proto__"/],
      ['a newer format', fromLines([JSON.stringify({ ...JSON.parse(lines[0]!), version: 4 }), ...lines.slice(1)]), /made by a newer version of the app \(backup format 4/],
      ['not a backup at all', new TextEncoder().encode('hello'), /not a Roleplay Engine backup/],
      [
        'a turn in a chat that does not exist, checksum and count made right',
        fromLines(resealed([...lines.slice(0, -1), JSON.stringify({ ...event(lines.length - 2), id: 'ffffffff-ffff-7fff-bfff-ffffffffffff', chat_id: '01890000-0000-7000-8000-00000000c4a7', command_id: null, cause_id: null, kind: 'user_turn', payload: JSON.stringify({ turnId: '01890000-0000-7000-8000-0000000000aa', text: 'a ghost turn', segments: [{ type: 'dialogue', text: 'a ghost turn' }] }) }), lines.at(-1)!])),
        new RegExp(`Line ${lines.length} of the backup \\(event ${lines.length - 1}, user_turn\\) belongs to chat 01890000-0000-7000-8000-00000000c4a7, which no event before it starts`),
      ],
    ];
    const target = await storyEngine('mine');
    const before = { log: target.engine.exportLog().events, tables: dumpProjections(target.db) };
    for (const [what, bytes, message] of cases) {
      await expect(restoreBackupFile(target.engine, blob(bytes)), what).rejects.toThrow(message);
      expect(target.engine.exportLog().events, what).toEqual(before.log);
      expect(dumpProjections(target.db), what).toEqual(before.tables);
    }
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
    expect(target.db.get("SELECT 1 AS x FROM sqlite_master WHERE name = 'restore_staging'")).toBeUndefined();
  });
});
