import type { Db } from '../../src/engine/db/port.ts';
import type { Engine } from './engine.ts';
import { couchDatabase } from '../../src/engine/sync/couch.ts';
import { createReplicator } from '../../src/engine/sync/replicator.ts';
import type { CouchServer } from './couch-server.ts';
import { draft } from './fixtures.ts';

/** A device in the sync tests: its engine and its database. */
export interface Device {
  engine: Engine;
  db: Db;
}

/** The device's replicator with one database of the test server. */
export function replicatorFor(server: CouchServer, d: Device, database: string, batch?: number) {
  return createReplicator({
    couch: couchDatabase(`${server.url}/${database}`, server.fetch),
    remote: `${server.url}/${database}`,
    log: d.engine.sync,
    deviceId: () => d.engine.identify().dbId,
    ...(batch ? { batch } : {}),
  });
}

/** One exchange as play writes it: your line, the reply, and its analysis (a feeling, a memory). */
export function exchange(d: Device, chat: string, bot: string, text: string): void {
  const turn = d.engine.newId();
  d.engine.append([
    draft.userTurn(chat, d.engine.newId(), text),
    draft.assistantStarted(chat, turn, bot),
    { ...draft.assistantTurn(chat, turn, bot, `Mira answers ${text}.`), causeDraft: 1 },
    { ...draft.edge(chat, bot, 'you', { affinityDelta: 1, facts: [`heard ${text}`] }), causeDraft: 2 },
    { ...draft.memory(chat, d.engine.newId(), bot, { summary: `Ada said ${text}.` }), causeDraft: 2 },
  ]);
}

/** A story with one bot and `exchanges` exchanges ("line 0", "line 1", …), as play writes them. */
export function playedStory(d: Device, exchanges: number): { chat: string; bot: string } {
  const bot = d.engine.newId();
  const chat = d.engine.newId();
  d.engine.append([draft.you(), draft.bot(bot), draft.chat(chat, bot)]);
  for (let i = 0; i < exchanges; i++) exchange(d, chat, bot, `line ${i}`);
  return { chat, bot };
}
