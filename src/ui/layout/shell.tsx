import { A, useLocation } from '@solidjs/router';
import { createSignal, Show, type JSX } from 'solid-js';
import type { RelayHealth } from '../relay-health.ts';
import type { TabStatus } from '../../worker/tab-coordinator.ts';

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
  updateReady: boolean;
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
    <button type="button" class="dismiss" aria-label="Dismiss" onClick={() => props.onClick()}>
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
          const target = document.querySelector<HTMLElement>('[role="log"][aria-label="Story"]') ?? document.getElementById('content');
          target?.focus();
        }}
      >
        {inChat() ? 'Skip to story' : 'Skip to content'}
      </a>
      <nav class="rail" aria-label="Main">
        <div class="brand" aria-hidden="true">
          <span class="brand-mark">◆</span> <span class="brand-name">Roleplay Engine</span>
        </div>
        <A href="/chats" activeClass="active">
          Chats
        </A>
        <A href="/bots" activeClass="active">
          Bots
        </A>
        <A href="/lore" activeClass="active">
          Lore
        </A>
        <A href="/settings" activeClass="active">
          Settings
        </A>
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
          <Show when={props.status.storage === 'memory'}>
            <p class="banner warn" data-banner="memory">
              <span class="banner-text">
                This window cannot save: private browsing, or a browser without storage support. Nothing will be saved when you close
                it.
              </span>
            </p>
          </Show>
          <Show when={props.relay.state === 'needs-token' ? props.relay : null}>
            {(relay) => (
              <p class="banner warn" data-banner="needs-token" role="alert">
                <span class="banner-text">
                  {relay().hadToken ? 'The relay refused this browser’s token.' : 'This relay needs a token.'} <A href="/settings#relay-token">Enter it in Settings</A> (it is the
                  relay’s RELAY_TOKEN).
                </span>
              </p>
            )}
          </Show>
          <Show when={props.searchIndexing}>
            {(backlog) => (
              <p class="banner info" data-banner="search-index">
                <span class="banner-text">
                  Indexing your stories for search: {Math.floor((100 * (backlog().most - backlog().waiting)) / backlog().most)} %. Search and recall find everything once it is
                  done.
                </span>
                <progress aria-label="Search index progress" value={backlog().most - backlog().waiting} max={backlog().most} />
              </p>
            )}
          </Show>
          <Show when={props.updateReady}>
            <p class="banner info" data-banner="update">
              <span class="banner-text">A new version is ready.</span>
              <button type="button" onClick={() => props.onUpdate()}>
                Reload to update
              </button>
            </p>
          </Show>
          <Show when={props.relay.state === 'offline'}>
            <p class="banner" data-banner="offline">
              <span class="banner-text">Offline: your chats and memories are here to read; new replies need the relay.</span>
            </p>
          </Show>
          <Show when={props.storageNearlyFull}>
            <p class="banner warn" data-banner="storage-full">
              <span class="banner-text">
                Storage is nearly full (over 80 % of what this browser allows the app). Export a backup from Settings, and free some
                space.
              </span>
            </p>
          </Show>
          <Show when={props.relay.state === 'online' && props.relay.mode === 'demo' && banners.shown('demo')}>
            <p class="banner info" data-banner="demo">
              <span class="banner-text">
                Demo model: replies are canned. To play for real, add a key in <A href="/settings#connection">Settings → Connection</A>.
              </span>
              <Dismiss onClick={() => banners.dismiss('demo')} />
            </p>
          </Show>
          <Show when={props.persisted === false && props.status.storage === 'opfs' && banners.shown('not-persisted')}>
            <p class="banner warn" data-banner="not-persisted">
              <span class="banner-text">
                The browser has not promised to keep your stories: it may clear them when space runs low. Install the app or export a
                backup from Settings.
              </span>
              <Dismiss onClick={() => banners.dismiss('not-persisted')} />
            </p>
          </Show>
        </div>
        <button
          type="button"
          class="notices-toggle small quiet"
          aria-expanded={noticesOpen()}
          aria-label={noticesOpen() ? 'Fewer notices' : 'More notices'}
          onClick={() => setNoticesOpen(!noticesOpen())}
        >
          {noticesOpen() ? 'Fewer' : 'More'}
        </button>
        </div>
        <main class="content" id="content" tabindex="-1">
          {props.children}
        </main>
      </div>
    </div>
  );
}
