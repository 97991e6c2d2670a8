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

/** A story whose bot has a background (as a card's would give it) and one more picture stored. */
async function storyWithBackgrounds() {
  const story = await openStory();
  const { engine, bot } = story;
  const hostPicture = engine.addImage({ mime: 'image/png', width: 1, height: 1, data: PNG });
  const picked = engine.addImage({ mime: 'image/webp', width: 1, height: 1, data: WEBP });
  engine.saveBot({ ...engine.getBot(bot)!, background: hostPicture }, bot);
  return { ...story, hostPicture, picked };
}

describe('chat backgrounds', () => {
  it('a chat shows its host’s background until the player picks another or none, and can go back to the host’s', async () => {
    const { engine, chat, bot, hostPicture, picked } = await storyWithBackgrounds();
    expect(engine.getBot(bot)!.background).toBe(hostPicture);
    expect(engine.chatState(chat)!.background).toEqual({ shown: hostPicture, choice: 'host', host: hostPicture });
    engine.setChatBackground(chat, picked);
    expect(engine.chatState(chat)!.background).toMatchObject({ shown: picked, choice: 'picture' });
    engine.setChatBackground(chat, 'none');
    expect(engine.chatState(chat)!.background).toEqual({ shown: null, choice: 'none', host: hostPicture });
    engine.setChatBackground(chat, 'host');
    expect(engine.chatState(chat)!.background).toEqual({ shown: hostPicture, choice: 'host', host: hostPicture });
    // A bot saved without one (its form's "Remove background") leaves its chats without.
    engine.saveBot({ ...engine.getBot(bot)!, background: null }, bot);
    expect(engine.getBot(bot)!.background).toBeNull();
    expect(engine.chatState(chat)!.background).toEqual({ shown: null, choice: 'host', host: null });
  });

  it('refuses a picture that is not stored, writes nothing for what is in force already, and an unknown chat', async () => {
    const { engine, db, chat, bot } = await storyWithBackgrounds();
    expect(() => engine.setChatBackground(chat, 'a'.repeat(64))).toThrow(/not stored here/);
    expect(() => engine.saveBot({ ...engine.getBot(bot)!, background: 'b'.repeat(64) }, bot)).toThrow(/background is not stored here/);
    expect(() => engine.setChatBackground(chat, 'javascript:alert(1)')).toThrow();
    expect(() => engine.setChatBackground(engine.newId(), 'none')).toThrow(/does not exist/);
    engine.setChatBackground(chat, 'host');
    expect(count(db, 'chat_background_set')).toBe(0);
  });

  it('is part of the story: a rewind before the change undoes it, a branch keeps it, a backup carries it', async () => {
    const { engine, chat, picked, hostPicture } = await storyWithBackgrounds();
    const opening = engine.transcript(chat).turns.at(-1)!;
    const turn = engine.turns.beginTurn(chat, 'Into the forest.');
    engine.turns.finishTurn(turn, { text: 'Pines close in.', usage: null, truncated: false, reason: null, error: null });
    engine.setChatBackground(chat, picked);
    const branch = engine.branchChat(chat, engine.transcript(chat).turns.at(-1)!.seq);
    expect(engine.chatState(branch)!.background).toMatchObject({ shown: picked, choice: 'picture' });

    const target = await openTestEngine();
    target.engine.importLog(JSON.parse(JSON.stringify(engine.exportLog())));
    expect(target.engine.chatState(chat)!.background).toMatchObject({ shown: picked, choice: 'picture' });
    expect(target.engine.image(picked)).toMatchObject({ hash: picked });

    const userRow = engine.transcript(chat).turns.find((t) => t.seq > opening.seq)!;
    engine.rewind(chat, userRow.seq);
    expect(engine.chatState(chat)!.background).toEqual({ shown: hostPicture, choice: 'host', host: hostPicture });
    expect(engine.chatState(branch)!.background).toMatchObject({ shown: picked, choice: 'picture' });
  });

  it('a purge takes the pictures only what it purges wears: a deleted chat’s pick, a deleted bot’s background', async () => {
    const { engine, db, chat, bot, hostPicture, picked } = await storyWithBackgrounds();
    engine.setChatBackground(chat, picked);
    engine.deleteChat(chat);
    engine.purgeNow({ chatId: chat });
    expect(engine.image(picked)).toBeNull();
    expect(engine.image(hostPicture)).toMatchObject({ hash: hostPicture });

    // Another bot wears the same background: purging the first keeps it.
    const other = engine.saveBot({ ...engine.getBot(bot)!, name: 'Tobin' }, null);
    engine.deleteBot(bot);
    engine.purgeNow({ botId: bot });
    expect(engine.image(hostPicture)).toMatchObject({ hash: hostPicture });
    engine.deleteBot(other);
    engine.purgeNow({ botId: other });
    expect(engine.image(hostPicture)).toBeNull();
    expect(count(db, 'image_added')).toBe(0);
  });
});
