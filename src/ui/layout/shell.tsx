import { A, useLocation } from '@solidjs/router';
import { createSignal, Show, type JSX } from 'solid-js';
import type { RelayHealth } from '../relay-health.ts';
import type { TabStatus } from '../../worker/tab-coordinator.ts';
import { t } from '../i18n/index.ts';
import { PurgeRescueBanners } from './purge-rescue-banners.tsx';
import { RewriteBanner } from './rewrite-banner.tsx';
import { SyncIndicator } from './sync-indicator.tsx';

export interface ShellProps {
  status: TabStatus;
  relay: RelayHealth;
  persisted: boolean | null;
  storageNearlyFull: boolean;
  /** Why the last change was not saved (a storage failure), until a later change is. */
  notSaved: string | null;
  onDismissNotSaved: () => void;
  /** Rows the search indexes still have to take in, of the most seen waiting, while a backlog lasts. */
  searchIndexing: { waiting: number; most: number } | null;
  /** How far the once-only rewrite of an older database has come, while it runs. */
  rewriting: number | null;
  updateReady: boolean;
  /** A window that cannot save: whether something written here is not yet exported, and the export. */
  unsavedWindow: { unexported: boolean; exporting: boolean; error: string | null; onExport: () => void };
  onUpdate: () => void;
  children?: JSX.Element;
}

const DISMISSED = 'roleplay-engine/dismissed-banners';

/** Notices put away once stay away in this browser; warnings about losing data come back each session. */
const KEPT_AWAY = new Set(['demo']);

/** Banners a user may put away: for good (`KEPT_AWAY`, in localStorage) or for this session. */
function createDismissals() {
  const read = (storage: Storage) => JSON.parse(storage.getItem(DISMISSED) ?? '[]') as string[];
  const [dismissed, setDismissed] = createSignal<string[]>([...read(localStorage), ...read(sessionStorage)]);
  return {
    shown: (name: string) => !dismissed().includes(name),
    dismiss: (name: string) => {
      const storage = KEPT_AWAY.has(name) ? localStorage : sessionStorage;
      storage.setItem(DISMISSED, JSON.stringify([...read(storage), name]));
      setDismissed([...dismissed(), name]);
    },
  };
}

function Dismiss(props: { onClick: () => void }) {
  return (
    <button type="button" class="dismiss" aria-label={t('shell.dismiss')} onClick={() => props.onClick()}>
      ×
    </button>
  );
}

/** The frame of every screen: the left rail, and one line per thing the user must know now. */
export function Shell(props: ShellProps) {
  const banners = createDismissals();
  // On a phone the notices take one line until the reader opens them (CSS keys off data-open).
  const [noticesOpen, setNoticesOpen] = createSignal(false);
  const location = useLocation();
  const inChat = () => /^\/chats\/[^/]+/.test(location.pathname);
  return (
    <div class="shell">
      <a
        class="skip-link"
        href="#content"
        onClick={(event) => {
          // Past the navigation and the notices: to the story when a chat is open, else the page.
          event.preventDefault();
          const target = document.querySelector<HTMLElement>('.transcript[role="log"]') ?? document.getElementById('content');
          target?.focus();
        }}
      >
        {inChat() ? t('shell.skipToStory') : t('shell.skipToContent')}
      </a>
      <nav class="rail" aria-label={t('nav.main')}>
        <div class="brand" aria-hidden="true">
          <span class="brand-mark">◆</span> <span class="brand-name">Roleplay Engine</span>
        </div>
        <A href="/chats" activeClass="active">
          {t('nav.chats')}
        </A>
        <A href="/bots" activeClass="active">
          {t('nav.bots')}
        </A>
        <A href="/lore" activeClass="active">
          {t('nav.lore')}
        </A>
        <A href="/settings" activeClass="active">
          {t('nav.settings')}
        </A>
        <SyncIndicator />
      </nav>
      <div class="main">
        <div class="notices" data-open={noticesOpen() ? 'true' : 'false'}>
        <div class="banners" role="status" aria-live="polite">
          {/* Most pressing first: folded, the notices show only the first of them. */}
          <Show when={props.notSaved}>
            {(problem) => (
              <p class="banner error" data-banner="not-saved" role="alert">
                <span class="banner-text">{problem()}</span>
                <Dismiss onClick={() => props.onDismissNotSaved()} />
              </p>
            )}
          </Show>
          <PurgeRescueBanners />
          <Show when={props.status.storage === 'memory'}>
            <p class="banner warn" data-banner="memory" role="alert">
              <span class="banner-text">
                {t('shell.cannotSave')}
                {props.unsavedWindow.unexported ? t('unsaved.exportHint') : ''}
                <Show when={props.unsavedWindow.error}>{(error) => <span class="error"> {t('unsaved.failed', error())}</span>}</Show>
              </span>
              <button type="button" disabled={props.unsavedWindow.exporting} onClick={() => props.unsavedWindow.onExport()}>
                {t('unsaved.export')}
              </button>
            </p>
          </Show>
          <Show when={props.relay.state === 'needs-token' ? props.relay : null}>
            {(relay) => (
              <p class="banner warn" data-banner="needs-token" role="alert">
                <span class="banner-text">
                  <Show
                    when={!relay().removed}
                    fallback={
                      <>
                        {t('shell.tokenRemoved')} <A href="/settings#relay-token">{t('shell.letInAgain')}</A>
                      </>
                    }
                  >
                    {relay().hadToken ? t('shell.tokenRefused') : t('shell.tokenNeeded')} <A href="/settings#relay-token">{t('shell.enterToken')}</A> {t('shell.tokenIs')}
                  </Show>
                </span>
              </p>
            )}
          </Show>
          <Show when={props.rewriting !== null}>
            <RewriteBanner fraction={props.rewriting ?? 0} />
          </Show>
          <Show when={props.searchIndexing}>
            {(backlog) => (
              <p class="banner info" data-banner="search-index">
                <span class="banner-text">{t('shell.indexing', Math.floor((100 * (backlog().most - backlog().waiting)) / backlog().most))}</span>
                <progress aria-label={t('shell.indexProgress')} value={backlog().most - backlog().waiting} max={backlog().most} />
              </p>
            )}
          </Show>
          <Show when={props.updateReady}>
            <p class="banner info" data-banner="update">
              <span class="banner-text">{t('shell.updateReady')}</span>
              <button type="button" onClick={() => props.onUpdate()}>
                {t('shell.reload')}
              </button>
            </p>
          </Show>
          <Show when={props.relay.state === 'offline'}>
            <p class="banner" data-banner="offline">
              <span class="banner-text">{t('shell.offline')}</span>
            </p>
          </Show>
          <Show when={props.storageNearlyFull}>
            <p class="banner warn" data-banner="storage-full">
              <span class="banner-text">{t('shell.storageFull')}</span>
            </p>
          </Show>
          <Show when={props.relay.state === 'online' && props.relay.mode === 'demo' && banners.shown('demo')}>
            <p class="banner info" data-banner="demo">
              <span class="banner-text">
                {t('shell.demoBefore')}
                <A href="/settings#connection">{t('shell.demoLink')}</A>
                {t('shell.demoAfter')}
              </span>
              <Dismiss onClick={() => banners.dismiss('demo')} />
            </p>
          </Show>
          <Show when={props.persisted === false && props.status.storage === 'opfs' && banners.shown('not-persisted')}>
            <p class="banner warn" data-banner="not-persisted">
              <span class="banner-text">{t('shell.notPersisted')}</span>
              <Dismiss onClick={() => banners.dismiss('not-persisted')} />
            </p>
          </Show>
        </div>
        <button
          type="button"
          class="notices-toggle small quiet"
          aria-expanded={noticesOpen()}
          aria-label={noticesOpen() ? t('shell.fewerNotices') : t('shell.moreNotices')}
          onClick={() => setNoticesOpen(!noticesOpen())}
        >
          {noticesOpen() ? t('shell.fewer') : t('shell.more')}
        </button>
        </div>
        <main class="content" id="content" tabindex="-1">
          {props.children}
        </main>
      </div>
    </div>
  );
}
