import { createResource, createSignal, For, onMount, Show } from 'solid-js';
import { createAction } from '../action.ts';
import { BACKUP_ACCEPT, backupFileName, downloadBlob } from '../backup-file.ts';
import type { AppClient, BackupPreview } from '../engine-client.ts';
import { formatBytes } from '../storage-health.ts';

const WHY: Record<string, string> = {
  daily: 'Daily',
  'before-restore': 'Before a restore',
  'before-reset': 'Before a bot reset',
  'before-fresh-start': 'Before starting fresh',
};

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;
const when = (ms: number) => new Date(ms).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

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
      setDone('Backup exported.');
    });
  const downloadDatabase = () =>
    void run(async () => {
      setDone(null);
      downloadBlob(await props.client.admin.databaseFile(), `roleplay-engine-${new Date().toISOString().slice(0, 10)}.sqlite3`);
      setDone('Database file downloaded: open it with any SQLite tool. To move your stories, use a backup.');
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
      setDone(`Restored from ${name}. What was here before is kept in this browser's backups.`);
      void refetch();
    });

  return (
    <div class="backup-section">
      <div class="row">
        <button type="button" onClick={exportBackup} disabled={busy()}>
          Export backup
        </button>
        <label class="button" classList={{ disabled: busy() }}>
          Restore from backup…
          <input type="file" accept={BACKUP_ACCEPT} class="visually-hidden" disabled={busy()} onChange={choose} />
        </label>
        <button type="button" onClick={downloadDatabase} disabled={busy()}>
          Download database file
        </button>
      </div>
      <Show when={busy() && !preview()}>
        <p class="muted" role="status">
          Working…
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
      <h3>Backups in this browser</h3>
      <p class="muted">Written once a day and before anything that replaces or clears your stories; the newest 14 daily and 5 of each other kind are kept.</p>
      <Show when={(kept() ?? []).length > 0} fallback={<p class="muted">None yet: the first is written a moment after your stories have something in them.</p>}>
        <table class="backups" aria-label="Backups in this browser">
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Why</th>
              <th scope="col">Holds</th>
              <th scope="col">Size</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            <For each={kept()}>
              {(b) => (
                <tr>
                  <td>{when(b.writtenAt)}</td>
                  <td>{WHY[b.reason] ?? b.reason}</td>
                  <td>
                    {plural(b.bots, 'bot')}, {plural(b.chats, 'chat')}, {plural(b.events, 'event')}
                  </td>
                  <td>{formatBytes(b.size)}</td>
                  <td>
                    <div class="backup-actions">
                    <button type="button" class="small" onClick={() => download(b.name)} disabled={busy()} aria-label={`Download the backup of ${when(b.writtenAt)}`}>
                      Download
                    </button>
                    <button type="button" class="small" onClick={() => previewStored(b.name)} disabled={busy()} aria-label={`Restore the backup of ${when(b.writtenAt)}`}>
                      Restore
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
      <h2 id="restore-title">Restore this backup?</h2>
      <p>
        <strong>{props.name}</strong>, exported {when(s().exportedAt)}
        {s().database === null ? '' : s().sameDatabase ? ' from this browser’s stories.' : ' from another browser or a database started afresh.'}
      </p>
      <ul class="restore-summary">
        <li>{plural(s().bots, 'bot')}</li>
        <li>{plural(s().chats, 'chat')}</li>
        <li>{plural(s().turns, 'turn')}</li>
        <li>{plural(s().events, 'event')}, every one checked</li>
      </ul>
      <p>
        Restoring replaces every bot, chat and setting here with the backup’s.
        {s().sameDatabase ? ' It is a backup of these same stories, so anything written since it was made goes.' : ''} A backup of what is here
        now is made first and kept in this browser.
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
          Cancel
        </button>
        <button type="button" class="danger" onClick={() => props.onRestore()} disabled={props.busy}>
          {props.busy ? 'Restoring…' : 'Restore'}
        </button>
      </div>
    </dialog>
  );
}
