import { Navigate, Route, Router, type RouteSectionProps } from '@solidjs/router';
import { createEffect, createMemo, createSignal, lazy, Match, onCleanup, Show, Switch } from 'solid-js';

// Screens visited now and then load when first opened (the service worker keeps them for offline use).
const BotFormPage = lazy(() => import('./authoring/bot-form-page.tsx').then((m) => ({ default: m.BotFormPage })));
const KickoffPage = lazy(() => import('./authoring/kickoff-page.tsx').then((m) => ({ default: m.KickoffPage })));
const LorePage = lazy(() => import('./pages/lore-page.tsx').then((m) => ({ default: m.LorePage })));
const LorebookPage = lazy(() => import('./pages/lorebook-page.tsx').then((m) => ({ default: m.LorebookPage })));
// The chat (with its markdown and sanitiser) is most visits' second screen: fetched when the app is
// idle, so opening one does not wait for it.
const ChatPage = lazy(() => import('./chat/chat-page.tsx').then((m) => ({ default: m.ChatPage })));
const DeletedPage = lazy(() => import('./pages/deleted-page.tsx').then((m) => ({ default: m.DeletedPage })));
// Settings and the bots carry the forms' schemas (zod): a start on the chat list loads neither.
const SettingsPage = lazy(() => import('./pages/settings-page.tsx').then((m) => ({ default: m.SettingsPage })));
const BotsPage = lazy(() => import('./pages/bots-page.tsx').then((m) => ({ default: m.BotsPage })));
import { createAppUpdate } from './app-update.ts';
import { ClientContext } from './context.ts';
import { SEARCH_INDEX_TOPIC, type SearchIndexProgress } from '../engine/for-first-screen.ts';
import { createEngineClient } from './engine-client.ts';
import { Shell } from './layout/shell.tsx';
import { RewriteBanner } from './layout/rewrite-banner.tsx';
import { ChatsPage } from './pages/chats-page.tsx';
import { DatabaseProblem, type Problem } from './pages/database-problem.tsx';
import { createRelayHealth } from './relay-health.ts';
import { createStorageHealth } from './storage-health.ts';
import { t } from './i18n/index.ts';
import { createUnsavedWindow } from './unsaved-window.ts';
import { hasFirstChatList, KNOWN_DB_KEY } from './first-chat-list.ts';


export function App() {
  const client = createEngineClient();
  const relay = createRelayHealth();
  const storage = createStorageHealth();
  const appUpdate = createAppUpdate();
  const unsavedWindow = createUnsavedWindow(client);
  const [knownDbId, setKnownDbId] = createSignal(localStorage.getItem(KNOWN_DB_KEY));
  const onStorage = (event: StorageEvent) => {
    if (event.key === KNOWN_DB_KEY) setKnownDbId(event.newValue);
  };
  addEventListener('storage', onStorage);
  onCleanup(() => removeEventListener('storage', onStorage));

  const problem = createMemo((): Problem | null => {
    const { database, storage: mode } = client.status();
    if (!database) return null;
    if (database.kind !== 'ready') return { kind: database.kind, detail: database.detail };
    const known = knownDbId();
    if (mode === 'opfs' && known && known !== database.dbId) {
      return { kind: 'missing', detail: `Expected database ${known}; found an empty new one (${database.dbId}).` };
    }
    return null;
  });

  // Once there is a story worth keeping, ask the browser to promise to keep it.
  // Asked once, so this stops listening then; a notice names the chats it touched, so only a
  // refetch-everything needs a query.
  const stopWatchingChats = client.onChange((notice) => {
    const someChat = notice === 'everything' ? client.engine.listChats().then((chats) => chats.length > 0) : Promise.resolve(notice.chats.length > 0);
    void someChat.then((yes) => {
      if (!yes) return;
      stopWatchingChats();
      void storage.askToPersist();
    });
  });
  onCleanup(stopWatchingChats);
  // A write the browser's storage refused, said in every tab until a later one succeeds (a change
  // notice is a write that was kept; whichever tab leads by then).
  const [notSaved, setNotSaved] = createSignal<string | null>(null);
  onCleanup(
    client.onChange((notice) => {
      if (notice !== 'everything') setNotSaved(null);
    }),
  );
  // A search-index backlog (a migration indexing every story again, a large import) and how far it has come.
  const [searchIndexing, setSearchIndexing] = createSignal<{ waiting: number; most: number } | null>(null);
  onCleanup(
    client.onPublish((topic, _seq, data) => {
      if (topic !== SEARCH_INDEX_TOPIC) return;
      const { waiting } = data as SearchIndexProgress;
      setSearchIndexing((shown) => (waiting > 0 ? { waiting, most: Math.max(waiting, shown?.most ?? 0) } : null));
    }),
  );
  // An older database rewritten once as it opens (topic REWRITE_TOPIC of the worker): how far, until
  // done. Shown only while no database is open, so a leader killed midway leaves no bar behind.
  const [rewritten, setRewritten] = createSignal<number | null>(null);
  onCleanup(
    client.onPublish((topic, _seq, data) => {
      if (topic !== 'rewrite') return;
      const { fraction } = data as { fraction: number };
      setRewritten(fraction < 1 ? fraction : null);
    }),
  );
  const rewriting = () => (client.status().database ? null : rewritten());
  onCleanup(
    client.onPublish((topic, _seq, data) => {
      if (topic !== 'storage') return;
      setNotSaved((data as { problem: string | null }).problem);
      void storage.refresh();
    }),
  );

  const remember = (dbId: string) => {
    localStorage.setItem(KNOWN_DB_KEY, dbId);
    setKnownDbId(dbId);
  };
  createEffect(() => {
    const { database, storage: mode } = client.status();
    if (database?.kind === 'ready' && mode === 'opfs' && !knownDbId()) remember(database.dbId);
  });

  // A start on the chat list with the list the leader kept paints it at once; every other start
  // says the stories are opening until the database answers.
  const paintedEarly = hasFirstChatList();
  const Layout = (props: RouteSectionProps) => (
    <Switch>
      <Match when={problem()}>
        {(p) => (
          <DatabaseProblem
            problem={p()}
            client={client}
            onResolved={() => {
              const database = client.status().database;
              if (database?.kind === 'ready') remember(database.dbId);
            }}
          />
        )}
      </Match>
      <Match when={client.status().database === null && !paintedEarly}>
        <main class="problem" aria-busy="true">
          <p class="muted">{t('misc.opening')}</p>
          <div role="status" aria-live="polite">
            <Show when={rewriting() !== null}>
              <RewriteBanner fraction={rewriting() ?? 0} />
            </Show>
          </div>
        </main>
      </Match>
      <Match when={true}>
        <Shell
          status={client.status()}
          relay={relay.health()}
          persisted={storage.health().persisted}
          storageNearlyFull={storage.nearlyFull()}
          notSaved={notSaved()}
          searchIndexing={searchIndexing()}
          rewriting={rewriting()}
          onDismissNotSaved={() => setNotSaved(null)}
          updateReady={appUpdate.updateReady()}
          onUpdate={() => void appUpdate.applyUpdate()}
          unsavedWindow={{ unexported: unsavedWindow.unexported(), exporting: unsavedWindow.exporting(), error: unsavedWindow.exportError(), onExport: () => void unsavedWindow.exportNow() }}
        >
          {props.children}
        </Shell>
      </Match>
    </Switch>
  );

  (globalThis.requestIdleCallback ?? setTimeout)(() => void ChatPage.preload());

  // Test and bench hook: the same client the UI uses, for measurements from outside the page.
  (globalThis as { roleplayEngine?: unknown }).roleplayEngine = client;

  return (
    <ClientContext.Provider value={client}>
      <Router root={Layout}>
        <Route path="/" component={() => <Navigate href="/chats" />} />
        <Route path="/chats" component={ChatsPage} />
        <Route path="/chats/:id" component={ChatPage} />
        <Route path="/deleted" component={DeletedPage} />
        <Route path="/bots" component={BotsPage} />
        <Route path="/bots/new" component={BotFormPage} />
        <Route path="/bots/:id/edit" component={BotFormPage} />
        <Route path="/bots/:id/start" component={KickoffPage} />
        <Route path="/lore" component={LorePage} />
        <Route path="/lore/book/:id" component={LorebookPage} />
        <Route path="/lore/bot/:id" component={LorebookPage} />
        <Route path="/settings" component={() => <SettingsPage relay={relay.health()} storage={storage.health()} onRelayChanged={() => void relay.check()} />} />
        <Route path="*" component={() => <Navigate href="/chats" />} />
      </Router>
    </ClientContext.Provider>
  );
}
