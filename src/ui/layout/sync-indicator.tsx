import { Show } from 'solid-js';
import type { SyncStatus } from '../../engine/for-ui.ts';
import { useClient } from '../context.ts';
import { t } from '../i18n/index.ts';
import { createSyncStatus } from '../sync-status.ts';

function words(status: SyncStatus): string {
  const waiting = status.unsynced > 0 ? t('nav.unsynced', status.unsynced) : null;
  switch (status.state) {
    case 'paused':
      return waiting ? `${t('nav.syncPaused')} · ${waiting}` : t('nav.syncPaused');
    case 'offline':
    case 'error':
      return waiting ? `${t('nav.syncStopped')} · ${waiting}` : t('nav.syncStopped');
    case 'starting':
    case 'syncing':
      return waiting ? `${t('nav.syncing')} · ${waiting}` : t('nav.syncing');
    default:
      return waiting ?? t('nav.synced');
  }
}

/**
 * Where sync stands, seen from every screen: a small link in the navigation to Settings → Sync,
 * with how many events written here the server does not have yet. Absent where sync is not set
 * up (or in a private window, which never syncs).
 */
export function SyncIndicator() {
  const { status } = createSyncStatus(useClient());
  return (
    <Show when={status()?.state !== 'unavailable' && status()?.state !== 'starting' ? status() : null}>
      {(shown) => (
        <a href="/settings#sync" class="sync-indicator" data-state={shown().state} data-unsynced={shown().unsynced} data-testid="sync-indicator" title={words(shown())}>
          <span class="sync-dot" aria-hidden="true" />
          {/* A phone's bar has room for the dot and the count only: the words stay, for screen readers, and name the link. */}
          <span class="sync-words">{words(shown())}</span>
          <Show when={shown().unsynced > 0}>
            <span class="sync-count" aria-hidden="true">{shown().unsynced}</span>
          </Show>
        </a>
      )}
    </Show>
  );
}
