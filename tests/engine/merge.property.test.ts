import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from '../support/engine.ts';
import type { SyncedEvent } from '../../src/engine/log/merge.ts';
import { canonicalProjections, checkMemoryIndex, checkTranscriptIndex, visibilityProblems } from '../support/dump.ts';
import { interpret, op, type Op } from '../support/story-ops.ts';
import { openTestEngine, testClock } from '../support/sqlite.ts';

/**
 * Sync is a union of events: N devices play offline from a shared start, then exchange their logs
 * in random batches, out of order and with duplicates. Every device must end with the same events
 * and the same rows in every projected table (events named by id: seqs are each device's own).
 */

const DEVICES = 3;
/**
 * Regenerate the latest reply, then go on: what players do on two devices apart (issue 36, bug 1).
 * Two such runs on two devices make two branches at one reply; they must never interleave.
 */
const regenerateThenContinue = fc.boolean().map((analyse): Op[] => [
  { t: 'regenerateLatest', c: 0, finish: true },
  { t: 'userTurn', c: 0 },
  { t: 'assistant', c: 0, finish: true, stop: false, analyse },
]);
const step = fc.oneof(
  fc.record({ t: fc.constant('play' as const), device: fc.nat(DEVICES - 1), ops: fc.array(op, { minLength: 1, maxLength: 12 }) }),
  fc.record({ t: fc.constant('play' as const), device: fc.nat(DEVICES - 1), ops: regenerateThenContinue }),
  fc.record({ t: fc.constant('sync' as const), from: fc.nat(DEVICES - 1), to: fc.nat(DEVICES - 1), cut: fc.nat(), order: fc.nat(), twice: fc.boolean() }),
);
const start: Op[] = [{ t: 'you', name: 'Ada' }, { t: 'bot', i: 0, name: 'Mira' }, { t: 'chat', i: 0 }, { t: 'userTurn', c: 0 }, { t: 'assistant', c: 0, finish: true, stop: false, analyse: true }];

type Step = typeof step extends fc.Arbitrary<infer T> ? T : never;
const FOUND_BOTH_VERSIONS_SHOWN: Step[] = [
  { t: 'play', device: 0, ops: [{ t: 'assistant', c: 0, finish: false, stop: false, analyse: false }, { t: 'regenerate', c: 0, k: 1 }, { t: 'memoryChange', c: 0, m: 0, which: 0, v: 0 }] },
  { t: 'play', device: 1, ops: [{ t: 'regenerateLatest', c: 0, finish: true }, { t: 'userTurn', c: 0 }, { t: 'assistant', c: 0, finish: true, stop: false, analyse: false }] },
  { t: 'play', device: 0, ops: [{ t: 'swipe', c: 0, k: 0 }, { t: 'assistant', c: 0, finish: false, stop: false, analyse: false }] },
];

interface Device {
  engine: Engine;
  db: Db;
}

const logOf = (device: Device): SyncedEvent[] => device.engine.eventsAfter(0, 1_000_000).map(({ seq: _, ...event }) => event);

/** A shuffle from a seed: each batch arrives in an order unrelated to the one it was written in. */
function shuffled<T>(list: readonly T[], seed: number): T[] {
  const out = [...list];
  let state = seed + 1;
  for (let i = out.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    const j = state % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/**
 * Sends `from`'s whole log to `to` in two batches split at a random point, shuffled: a batch may run
 * ahead of the causes its events name (a clustered CouchDB hands changes out as its shards' feeds
 * come), and what runs ahead waits for them.
 */
function send(from: Device, to: Device, cut: number, order: number): void {
  const log = shuffled(logOf(from), order + 2);
  const at = log.length === 0 ? 0 : cut % (log.length + 1);
  to.engine.mergeEvents(shuffled(log.slice(0, at), order));
  to.engine.mergeEvents(shuffled(log.slice(at), order + 1));
}

describe('merging the logs of several devices', () => {
  it('leaves every device with the same events and the same rows, whatever the order and however often they arrive', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const devices: Device[] = [];
        for (let i = 0; i < DEVICES; i++) {
          const clock = testClock();
          devices.push(await openTestEngine({ now: () => clock.advance(1_000 + i), journalKeep: 12 }));
        }
        interpret(devices[0]!.engine, devices[0]!.db, start);
        for (const device of devices.slice(1)) device.engine.mergeEvents(logOf(devices[0]!));

        for (const s of steps) {
          if (s.t === 'play') interpret(devices[s.device]!.engine, devices[s.device]!.db, s.ops, { known: true });
          else if (s.from !== s.to) {
            send(devices[s.from]!, devices[s.to]!, s.cut, s.order);
            if (s.twice) send(devices[s.from]!, devices[s.to]!, s.cut + 1, s.order + 7);
          }
        }
        // Everyone meets everyone.
        for (const from of devices) for (const to of devices) if (from !== to) send(from, to, 0, 3);

        const ids = (d: Device) => logOf(d).map((e) => e.id);
        const expected = canonicalProjections(devices[0]!.db);
        for (const device of devices) {
          // Local seq order is id order everywhere: every list kept in seq order reads alike.
          expect(ids(device)).toEqual([...ids(device)].sort());
          // Two devices that answered the same turn show one reply with both as versions, and
          // nothing stays in force that a version no longer shown caused.
          expect(visibilityProblems(device.db)).toEqual([]);
          // The search index was told each row's words as they left it, tails moved by merges included.
          checkTranscriptIndex(device.db);
          // Everything arrived, so nothing waits; and what any device purged is gone from every log.
          expect(device.db.get<{ n: number }>('SELECT count(*) AS n FROM sync_waiting')!.n).toBe(0);
          expect(device.db.all(`SELECT kind, chat_id FROM events WHERE chat_id IN (SELECT chat_id FROM purged_chats)
            OR chat_id IN (SELECT c.value FROM events p, json_each(p.payload, '$.chats') c WHERE p.kind = 'purged')`)).toEqual([]);
        }
        for (const device of devices.slice(1)) {
          expect(ids(device)).toEqual(ids(devices[0]!));
          expect(canonicalProjections(device.db)).toEqual(expected);
        }
        // And a merge left each device as a rebuild from its log would.
        for (const device of devices) {
          device.engine.rebuild();
          expect(canonicalProjections(device.db)).toEqual(expected);
          checkMemoryIndex(device.db);
          device.db.close();
        }
      }),
      {
        numRuns: Number(process.env.PROPERTY_RUNS ?? 60),
        ...(process.env.PROPERTY_SEED ? { seed: Number(process.env.PROPERTY_SEED) } : {}),
        // Cases it found, played first on every run. A reply regenerated twice on the laptop, one
        // version of it streaming, while the phone regenerated the reply before and went on; the
        // laptop then chose its first version again: both laptop versions came back shown.
        examples: [[FOUND_BOTH_VERSIONS_SHOWN]],
      },
    );
  });
});
