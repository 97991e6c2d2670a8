import { beforeEach } from 'vitest';
import type { Db } from '../../src/engine/db/port.ts';
import { loadTokenCounter } from '../../src/engine/turn/tokens.ts';
import type { Engine } from './engine.ts';
import { openStory } from './story.ts';

// Live bindings: a test file that imports these sees the story of the test running now.
export let engine: Engine;
export let db: Db;
export let chat: string;
export let bot: string;
/** The token counter the analysis jobs count with. */
export const count = await loadTokenCounter();

/** A fresh story (you as Ada, Mira, a chat with her) before each test of the calling file. */
export function freshStoryEachTest(options: Parameters<typeof openStory>[0] = {}): void {
  beforeEach(async () => {
    ({ engine, db, bot, chat } = await openStory(options));
  });
}

/** This test's story opened again with other options (a short journal). */
export async function reopenStory(options: Parameters<typeof openStory>[0]): Promise<void> {
  ({ engine, db, bot, chat } = await openStory(options));
}
