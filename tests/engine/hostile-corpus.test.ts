import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BadCallError, checkCall } from '../../src/engine/api.ts';
import { botFromCard } from '../../src/engine/cards/card-to-bot.ts';
import { readCard } from '../../src/engine/cards/read-card.ts';
import { chatFileTooLarge, planChatImport } from '../../src/engine/chat-import/plan.ts';
import { checkBackupFile, restoreBackupFile } from '../../src/worker/backup-streams.ts';
import { HOSTILE_DIR, type CorpusEntry, type Importer } from '../fixtures/hostile/make-corpus.ts';
import { dumpProjections } from '../support/dump.ts';
import { draft } from '../support/fixtures.ts';
import { openTestEngine } from '../support/sqlite.ts';

const MANIFEST = JSON.parse(readFileSync(join(HOSTILE_DIR, 'manifest.json'), 'utf8')) as Record<string, CorpusEntry>;
const IMPORTERS: Importer[] = ['card', 'lorebook', 'chat', 'backup'];
/** Generous bounds for a shared, noisy machine: a stall is minutes, a bomb gigabytes. */
const TIME_BOUND_MS = 15_000;
const MEMORY_BOUND_MB = 400;

type TestEngine = Awaited<ReturnType<typeof openTestEngine>>['engine'];

/** Each importer as the app drives it, arguments checked as the leader checks them. */
async function runImporter(importer: Importer, engine: TestEngine, botId: string, name: string, bytes: Uint8Array): Promise<void> {
  const text = () => new TextDecoder().decode(bytes);
  const call = (method: string, args: unknown[]) => {
    const checked = checkCall(method, [engine.newId(), ...args]).args;
    return (engine as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!(...checked);
  };
  switch (importer) {
    case 'card': {
      const read = await readCard(bytes);
      const { cut: _cut, ...fields } = botFromCard(read.card.data);
      call('importCard', [{ fields, card: read.card.original, spec: read.card.spec, format: read.format }, null]);
      return;
    }
    case 'lorebook':
      call('addLorebook', [{ text: text(), fileName: name }]);
      return;
    case 'chat': {
      const tooLarge = chatFileTooLarge(bytes.length);
      if (tooLarge) throw new Error(tooLarge);
      planChatImport(text());
      call('importChat', [{ text: text(), botId, title: 'Imported', progressId: 'corpus' }]);
      return;
    }
    case 'backup': {
      const file = new Blob([bytes as Uint8Array<ArrayBuffer>]);
      await checkBackupFile(engine, file);
      await restoreBackupFile(engine, file);
    }
  }
}

/** An error a player can act on: the app's own words, not a crash passed through. */
function unclear(error: unknown): string | null {
  if (!(error instanceof Error)) return `threw a non-error: ${String(error)}`;
  if (error instanceof BadCallError) return `only the call check caught it: ${error.message}`;
  if (['TypeError', 'RangeError', 'SyntaxError', 'ReferenceError', 'ZodError', 'EvalError', 'InternalError'].includes(error.name)) return `${error.name}: ${error.message}`;
  if (!error.message.trim() || error.message.length > 600) return `a message of ${error.message.length} characters`;
  if (/Maximum call stack|Cannot read prop|is not a function|\[object Object\]|undefined|Too big|Too small|Expected \w+, received/i.test(error.message)) return error.message;
  return null;
}

const snapshot = (engine: TestEngine, db: Awaited<ReturnType<typeof openTestEngine>>['db']) =>
  JSON.stringify({ events: db.all('SELECT id, kind, payload FROM events ORDER BY seq'), tables: dumpProjections(db) });

describe('the hostile corpus (tests/fixtures/hostile)', () => {
  it('holds at least 60 files, each described', () => {
    expect(Object.keys(MANIFEST).length).toBeGreaterThanOrEqual(60);
    for (const [name, entry] of Object.entries(MANIFEST)) expect([name, entry.tries.length > 0, entry.family.length > 0]).toEqual([name, true, true]);
  });

  it('every importer takes each file safely or refuses it saying why, in bounded time and memory, changing nothing when it refuses', { timeout: 600_000 }, async () => {
    const problems: string[] = [];
    const timings: [string, number][] = [];
    const peakAtStart = process.resourceUsage().maxRSS / 1024;
    for (const [name, entry] of Object.entries(MANIFEST)) {
      const bytes = new Uint8Array(readFileSync(join(HOSTILE_DIR, name)));
      const { engine, db } = await openTestEngine();
      const botId = engine.newId();
      const chatId = engine.newId();
      engine.append([draft.you(), draft.bot(botId), draft.chat(chatId, botId), draft.userTurn(chatId, engine.newId(), 'Before the file.')]);
      for (const importer of IMPORTERS) {
        const before = snapshot(engine, db);
        const started = performance.now();
        let outcome: 'took' | 'refused';
        try {
          await runImporter(importer, engine, botId, name, bytes);
          outcome = 'took';
        } catch (error) {
          outcome = 'refused';
          const why = unclear(error);
          if (why) problems.push(`${name} · ${importer}: unclear refusal: ${why}`);
          if (snapshot(engine, db) !== before) problems.push(`${name} · ${importer}: refused, but the database changed`);
        }
        const ms = performance.now() - started;
        timings.push([`${name} · ${importer}`, ms]);
        if (ms > TIME_BOUND_MS) problems.push(`${name} · ${importer}: took ${Math.round(ms)} ms`);
        const expected = entry.accepts.includes(importer) ? 'took' : 'refused';
        if (outcome !== expected) problems.push(`${name} · ${importer}: ${outcome}, expected ${expected} (${entry.tries})`);
        if (({} as Record<string, unknown>).polluted !== undefined || Object.keys(Object.prototype).length > 0) {
          problems.push(`${name} · ${importer}: Object.prototype was polluted`);
          for (const key of Object.keys(Object.prototype)) delete (Object.prototype as Record<string, unknown>)[key];
        }
      }
      const grown = process.resourceUsage().maxRSS / 1024 - peakAtStart;
      if (grown > MEMORY_BOUND_MB) problems.push(`${name}: the process's peak memory grew by ${Math.round(grown)} MB`);
    }
    const slowest = timings.sort((a, b) => b[1] - a[1]).slice(0, 3).map(([what, ms]) => `${what} ${Math.round(ms)} ms`);
    expect(problems, `slowest: ${slowest.join(', ')}`).toEqual([]);
  });
});
