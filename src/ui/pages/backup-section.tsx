import { createResource, createSignal, For, onMount, Show } from 'solid-js';
import { createAction } from '../action.ts';
import { BACKUP_ACCEPT, backupFileName, downloadBlob } from '../backup-file.ts';
import type { AppClient, BackupPreview } from '../engine-client.ts';
import { formatBytes } from '../storage-health.ts';
import { t, uiLanguage } from '../i18n/index.ts';

const REASONS = ['daily', 'before-restore', 'before-reset', 'before-fresh-start'] as const;
const why = (reason: string) => ((REASONS as readonly string[]).includes(reason) ? t(`backup.why.${reason as 'daily'}`) : reason);
const when = (ms: number) => new Date(ms).toLocaleString(uiLanguage(), { dateStyle: 'medium', timeStyle: 'short' });

/**
 * Export and restore. A restore is checked through first and shown before anything changes; what
 * is here now is backed up inside the browser before it is replaced.
 */
export function BackupSection(props: { client: AppClient }) {
  const { run, busy, error } = createAction();
  const [done, setDone] = createSignal<string | null>(null);
  const [preview, setPreview] = createSignal<{ name: string; source: File | { stored: string }; summary: BackupPreview } | null>(null);
  const [kept, { refetch }] = createResource(() => props.client.admin.listBackups());

  const exportBackup = () =>
    void run(async () => {
      setDone(null);
      downloadBlob(await props.client.admin.backupFile(), backupFileName());
      setDone(t('backup.exported'));
    });
  const downloadDatabase = () =>
    void run(async () => {
      setDone(null);
      downloadBlob(await props.client.admin.databaseFile(), `roleplay-engine-${new Date().toISOString().slice(0, 10)}.sqlite3`);
      setDone(t('backup.databaseDownloaded'));
    });
  const choose = (event: Event) => {
    const input = event.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    setDone(null);
    void run(async () => setPreview({ name: file.name, source: file, summary: await props.client.admin.checkBackup(file) }));
  };
  const previewStored = (name: string) => {
    setDone(null);
    void run(async () => setPreview({ name, source: { stored: name }, summary: await props.client.admin.checkBackup({ stored: name }) }));
  };
  const download = (name: string) => void run(async () => downloadBlob(await props.client.admin.storedBackup(name), name));
  const restore = (name: string, source: File | { stored: string }) =>
    void run(async () => {
      await props.client.admin.restoreBackup(source);
      setPreview(null);
      setDone(t('backup.restored', name));
      void refetch();
    });

  return (
    <div class="backup-section">
      <div class="row">
        <button type="button" onClick={exportBackup} disabled={busy()}>
          {t('backup.export')}
        </button>
        <label class="button" classList={{ disabled: busy() }}>
          {t('backup.restoreFrom')}
          <input type="file" accept={BACKUP_ACCEPT} class="visually-hidden" disabled={busy()} onChange={choose} />
        </label>
        <button type="button" onClick={downloadDatabase} disabled={busy()}>
          {t('backup.downloadDatabase')}
        </button>
      </div>
      <Show when={busy() && !preview()}>
        <p class="muted" role="status">
          {t('backup.working')}
        </p>
      </Show>
      <Show when={preview() ? null : error()}>
        {(message) => (
          <p class="error" role="alert" data-testid="backup-message" ref={(el) => queueMicrotask(() => el.scrollIntoView({ block: 'nearest' }))}>
            {message()}
          </p>
        )}
      </Show>
      <Show when={done()}>
        {(message) => (
          <p class="ok" role="status" data-testid="backup-message" ref={(el) => queueMicrotask(() => el.scrollIntoView({ block: 'nearest' }))}>
            {message()}
          </p>
        )}
      </Show>
      <Show when={preview()}>
        {(shown) => (
          <RestorePreview name={shown().name} summary={shown().summary} busy={busy()} error={error()} onRestore={() => restore(shown().name, shown().source)} onCancel={() => setPreview(null)} />
        )}
      </Show>
      <h3>{t('backup.kept')}</h3>
      <p class="muted">{t('backup.keptAbout')}</p>
      <Show when={(kept() ?? []).length > 0} fallback={<p class="muted">{t('backup.noneYet')}</p>}>
        <table class="backups" aria-label={t('backup.kept')}>
          <thead>
            <tr>
              <th scope="col">{t('backup.when')}</th>
              <th scope="col">{t('backup.whyHead')}</th>
              <th scope="col">{t('backup.holds')}</th>
              <th scope="col">{t('backup.size')}</th>
              <th scope="col">
                <span class="visually-hidden">{t('backup.actions')}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            <For each={kept()}>
              {(b) => (
                <tr>
                  <td>{when(b.writtenAt)}</td>
                  <td>{why(b.reason)}</td>
                  <td>
                    {t('counts.bots', b.bots)}, {t('chats.count', b.chats)}, {t('counts.events', b.events)}
                  </td>
                  <td>{formatBytes(b.size)}</td>
                  <td>
                    <div class="backup-actions">
                    <button type="button" class="small" onClick={() => download(b.name)} disabled={busy()} aria-label={t('backup.downloadOf', when(b.writtenAt))}>
                      {t('backup.download')}
                    </button>
                    <button type="button" class="small" onClick={() => previewStored(b.name)} disabled={busy()} aria-label={t('backup.restoreOf', when(b.writtenAt))}>
                      {t('story.restore')}
                    </button>
                    </div>
                  </td>
                </tr>
              )}
            </For>
          </tbody>
        </table>
      </Show>
    </div>
  );
}

function RestorePreview(props: { name: string; summary: BackupPreview; busy: boolean; error: string | null; onRestore: () => void; onCancel: () => void }) {
  let dialog: HTMLDialogElement | undefined;
  onMount(() => dialog?.showModal());
  const s = () => props.summary;
  return (
    <dialog
      ref={dialog}
      class="restore-dialog"
      aria-labelledby="restore-title"
      onCancel={(event) => {
        event.preventDefault();
        props.onCancel();
      }}
    >
      <h2 id="restore-title">{t('backup.restoreAsk')}</h2>
      <p>
        <strong>{props.name}</strong>
        {t('backup.exportedAt', when(s().exportedAt))}
        {s().database === null ? '' : s().sameDatabase ? t('backup.fromHere') : t('backup.fromElsewhere')}
      </p>
      <ul class="restore-summary">
        <li>{t('counts.bots', s().bots)}</li>
        <li>{t('chats.count', s().chats)}</li>
        <li>{t('counts.turns', s().turns)}</li>
        <li>{t('backup.eventsChecked', t('counts.events', s().events))}</li>
      </ul>
      <p>
        {t('backup.replaces')}
        {s().sameDatabase ? t('backup.sameStories') : ''}
        {t('backup.backupFirst')}
      </p>
      <Show when={props.error}>
        {(message) => (
          <p class="error" role="alert">
            {message()}
          </p>
        )}
      </Show>
      <div class="dialog-actions">
        <button type="button" onClick={() => props.onCancel()} disabled={props.busy}>
          {t('edit.cancel')}
        </button>
        <button type="button" class="danger" onClick={() => props.onRestore()} disabled={props.busy}>
          {props.busy ? t('backup.restoring') : t('story.restore')}
        </button>
      </div>
    </dialog>
  );
}
