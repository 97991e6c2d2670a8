import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import { openTestEngine } from '../support/sqlite.ts';
import { openStory } from '../support/story.ts';

/** Real one-pixel pictures. */
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const WEBP = 'UklGRiQAAABXRUJQVlA4IBgAAAAwAQCdASoBAAEAAwA0JaQAA3AA/vuUAAA=';
const sha = (base64: string) => createHash('sha256').update(Buffer.from(base64, 'base64')).digest('hex');
const count = (db: Db, kind: string) => db.get<{ n: number }>(`SELECT count(*) AS n FROM events WHERE kind = '${kind}'`)!.n;

describe('pictures', () => {
  it('are stored once, named by the hash of their bytes, which the engine computes itself', async () => {
    const { engine, db } = await openStory();
    const hash = engine.addImage({ mime: 'image/png', width: 1, height: 1, data: PNG });
    expect(hash).toBe(sha(PNG));
    expect(engine.addImage({ mime: 'image/png', width: 1, height: 1, data: PNG })).toBe(hash);
    expect(count(db, 'image_added')).toBe(1);
    expect(engine.image(hash)).toEqual({ hash, mime: 'image/png', data: PNG });
    expect(engine.addImage({ mime: 'image/webp', width: 1, height: 1, data: WEBP })).toBe(sha(WEBP));
  });

  it('refuses what is not the picture it says, with a message, and writes nothing', async () => {
    const { engine, db } = await openStory();
    expect(() => engine.addImage({ mime: 'image/webp', width: 1, height: 1, data: PNG })).toThrow(/cannot be stored: data is not WEBP data/);
    expect(() => engine.addImage({ mime: 'text/html', width: 1, height: 1, data: PNG })).toThrow(/cannot be stored: mime/);
    expect(() => engine.addImage({ mime: 'image/png', width: 1, height: 1, data: 'not base64!' })).toThrow(/could not be read/);
    expect(() => engine.addImage({ mime: 'image/png', width: 0, height: 1, data: PNG })).toThrow(/width/);
    expect(count(db, 'image_added')).toBe(0);
  });

  it('a bot and you wear a stored picture; one that is not stored is refused; the chat list shows the bot’s', async () => {
    const { engine, bot } = await openStory();
    const fields = { ...engine.getBot(bot)! };
    expect(() => engine.saveBot({ ...fields, avatar: sha(PNG) }, bot)).toThrow(/not stored here/);
    const hash = engine.addImage({ mime: 'image/png', width: 1, height: 1, data: PNG });
    engine.saveBot({ ...fields, avatar: hash }, bot);
    expect(engine.getBot(bot)!.avatar).toBe(hash);
    expect(engine.listChats()[0]!.botAvatar).toBe(hash);
    engine.saveYou({ name: 'Ada', pronouns: '', persona: '', avatar: hash });
    expect(engine.getYou()!.avatar).toBe(hash);
    engine.saveYou({ name: 'Ada', pronouns: '', persona: '' });
    expect(engine.getYou()!.avatar).toBeNull();
  });

  it('travel in a backup, and a backup whose picture does not match its hash is refused', async () => {
    const { engine, bot } = await openStory();
    const hash = engine.addImage({ mime: 'image/png', width: 1, height: 1, data: PNG });
    engine.saveBot({ ...engine.getBot(bot)!, avatar: hash }, bot);
    const backup = JSON.parse(JSON.stringify(engine.exportLog()));
    const target = await openTestEngine();
    target.engine.importLog(backup);
    expect(target.engine.image(hash)).toEqual({ hash, mime: 'image/png', data: PNG });
    expect(target.engine.getBot(bot)!.avatar).toBe(hash);

    const forged = JSON.parse(JSON.stringify(backup));
    const event = forged.events.find((e: { kind: string }) => e.kind === 'image_added');
    const payload = typeof event.payload === 'string' ? JSON.parse(event.payload) : event.payload;
    payload.data = WEBP;
    payload.mime = 'image/webp';
    event.payload = typeof event.payload === 'string' ? JSON.stringify(payload) : payload;
    const other = await openTestEngine();
    expect(() => other.engine.importLog(forged)).toThrow(/hash: does not match the picture/);
    expect(other.engine.headSeq()).toBe(0);
  });
});

describe('pictures and the purge', () => {
  it('a purged bot’s picture goes with it, unless someone who stays still wears it', async () => {
    const { engine, db, bot } = await openStory();
    const png = engine.addImage({ mime: 'image/png', width: 1, height: 1, data: PNG });
    const webp = engine.addImage({ mime: 'image/webp', width: 1, height: 1, data: WEBP });
    engine.saveBot({ ...engine.getBot(bot)!, avatar: png }, bot);
    engine.saveBot({ ...engine.getBot(bot)!, avatar: webp }, bot);
    engine.saveYou({ name: 'Ada', pronouns: '', persona: '', avatar: webp });
    engine.deleteBot(bot);
    engine.purgeNow({ botId: bot });
    expect(engine.image(png)).toBeNull();
    expect(count(db, 'image_added')).toBe(1);
    expect(engine.image(webp)).toMatchObject({ hash: webp });
  });
});
