import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../support/engine.ts';
import { couchDatabase } from '../../src/engine/sync/couch.ts';
import { WrongPassphraseError } from '../../src/engine/sync/encryption.ts';
import { createReplicator } from '../../src/engine/sync/replicator.ts';
import { eventToDoc } from '../../src/engine/sync/event-docs.ts';
import { freshDatabaseName, startCouch, type CouchServer } from '../support/couch-server.ts';
import { canonicalProjections } from '../support/dump.ts';
import { draft } from '../support/fixtures.ts';
import { openTestEngine } from '../support/sqlite.ts';

let server: CouchServer;
beforeAll(async () => {
  server = await startCouch();
});
afterAll(async () => {
  await server.close();
});

const SECRET_LINE = 'Ada whispers the vault combination: seven, nine, lighthouse.';

function sync(engine: Engine, database: string, passphrase: string | null) {
  const remote = `${server.url}/${database}`;
  return createReplicator({
    couch: couchDatabase(remote, server.fetch),
    remote,
    log: engine.sync,
    deviceId: () => engine.identify().dbId,
    passphrase: () => passphrase,
    randomBytes: (n) => new Uint8Array(randomBytes(n)),
  });
}

async function laptopWithSecret() {
  const device = await openTestEngine();
  const bot = device.engine.newId();
  const chat = device.engine.newId();
  device.engine.append([draft.you(), draft.bot(bot, { name: 'Captain Mira Vell' }), draft.chat(chat, bot), draft.userTurn(chat, device.engine.newId(), SECRET_LINE)]);
  return device;
}

const serverText = async (database: string) => (await server.fetch(`${server.url}/${database}/_changes?include_docs=true`)).text();

describe('end-to-end encryption of what the sync server holds', () => {
  it('with a passphrase the server holds only ciphertext, and a device with the same passphrase reads the story', async () => {
    const database = freshDatabaseName();
    const laptop = await laptopWithSecret();
    const push = sync(laptop.engine, database, 'correct horse battery staple');
    await push.prepare();
    await push.push();
    const onServer = await serverText(database);
    expect(onServer).toContain('"sealed"');
    for (const plain of ['vault combination', 'Captain Mira Vell', 'user_turn', 'you_authored', laptop.engine.identify().dbId]) expect(onServer).not.toContain(plain);
    // Nor can the server test a guess: the revision is not the plain content's hash.
    const [first] = laptop.engine.eventsAfter(0, 1);
    expect(onServer).not.toContain(eventToDoc(first!)._rev);

    const phone = await openTestEngine();
    const pull = sync(phone.engine, database, 'correct horse battery staple');
    await pull.prepare();
    await pull.pull();
    expect(canonicalProjections(phone.db)).toEqual(canonicalProjections(laptop.db));
  });

  it('a wrong passphrase says so and writes nothing; no passphrase at all says the database is encrypted', async () => {
    const database = freshDatabaseName();
    const laptop = await laptopWithSecret();
    const push = sync(laptop.engine, database, 'correct horse battery staple');
    await push.prepare();
    await push.push();
    const phone = await openTestEngine();
    await expect(sync(phone.engine, database, 'wrong horse').prepare()).rejects.toThrow(WrongPassphraseError);
    await expect(sync(phone.engine, database, 'wrong horse').prepare()).rejects.toThrow(/not the one the sync database was encrypted with; nothing was written/);
    await expect(sync(phone.engine, database, null).prepare()).rejects.toThrow(/encrypted: enter its passphrase/);
    // Skipping the check does not get past the seal either.
    await expect(sync(phone.engine, database, null).pull()).rejects.toThrow(/encrypted and this device has no passphrase/);
    expect(phone.engine.eventsAfter(0, 100)).toEqual([]);
    expect(phone.engine.sync.state(`${server.url}/${database}`).pulledSince).toBeNull();
  });

  it('a database that already holds plain stories is not half encrypted later', async () => {
    const database = freshDatabaseName();
    const laptop = await laptopWithSecret();
    const plain = sync(laptop.engine, database, null);
    await plain.prepare();
    await plain.push();
    await expect(sync(laptop.engine, database, 'too late').prepare()).rejects.toThrow(/already holds unencrypted stories/);
  });
});
