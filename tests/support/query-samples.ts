import type { QueryName } from '../../src/engine/api.ts';
import type { Db } from '../../src/engine/db/port.ts';

/**
 * Arguments for every query of the API, on one story: the tests that run each query in turn
 * (what it reads, what it costs) share them, and a query added to the API without one here does
 * not compile. `overrides` asks a query another way (another target for "Why?", another place).
 */
export function querySamples(
  story: { bot: string; chat: string; lorebook: string; replyTurnId: string; rewindSeq: number; searchWords: string },
  overrides: Partial<Record<QueryName, unknown[]>> = {},
): Record<QueryName, unknown[]> {
  const { bot, chat, lorebook } = story;
  return {
    headSeq: [],
    listBots: [],
    getBot: [bot],
    getYou: [],
    listPersonas: [],
    chatPersona: [chat],
    listChats: [],
    transcript: [chat, { limit: 50 }],
    transcriptLength: [chat],
    transcriptWindow: [chat, { storyTime: '0001-01-01' }],
    chatState: [chat],
    storyLanguage: [chat],
    recap: [chat],
    valueHistory: [chat, { type: 'chat_state' }, 'fictionTime'],
    previewRewind: [chat, story.rewindSeq],
    replyPrompt: [chat, story.replyTurnId],
    settings: [],
    classifierFailures: [],
    exportLog: [],
    streamState: [chat],
    proposeKickoff: [bot],
    impersonate: [chat],
    prepareToSend: [chat],
    recentlyDeleted: [],
    exportCard: [bot],
    botCardInfo: [bot],
    exportChat: [chat, 'markdown'],
    image: ['0'.repeat(64)],
    searchChats: [story.searchWords],
    listLorebooks: [],
    lorebook: [{ lorebookId: lorebook }],
    lorebookAsWorldInfo: [{ lorebookId: lorebook }],
    chatLorebooks: [chat],
    analysisStatus: [chat],
    syncStatus: [],
    syncNow: [],
    purgeRescues: [],
    rescuedChatFile: [chat],
    ...overrides,
  };
}

/**
 * A database that knows which statement it is running (the innermost, while one runs inside
 * another's call) and every statement it has been asked to run.
 */
export function observedDb(inner: Db): { db: Db; statements: Set<string>; running: () => string } {
  const statements = new Set<string>();
  let running = '';
  const observed =
    <A extends unknown[], R>(call: (sql: string, ...rest: A) => R) =>
    (sql: string, ...rest: A): R => {
      statements.add(sql);
      const outer = running;
      running = sql;
      try {
        return call(sql, ...rest);
      } finally {
        running = outer;
      }
    };
  const db: Db = {
    run: observed((sql, params) => inner.run(sql, params)),
    insert: observed((sql, params) => inner.insert(sql, params)),
    get: observed((sql, params) => inner.get(sql, params)) as Db['get'],
    all: observed((sql, params) => inner.all(sql, params)) as Db['all'],
    exec: (sql) => inner.exec(sql),
    onSteps: (every, callback) => inner.onSteps(every, callback),
    transaction: (fn) => inner.transaction(fn),
    get inTransaction() {
      return inner.inTransaction;
    },
    close: () => inner.close(),
  };
  return { db, statements, running: () => running };
}
