import { Show } from 'solid-js';
import { BACKUP_ACCEPT } from '../backup-file.ts';
import { createAction } from '../action.ts';
import type { AppClient } from '../engine-client.ts';

export type Problem = { kind: 'corrupt' | 'failed' | 'missing'; detail: string };

const TITLES: Record<Problem['kind'], string> = {
  corrupt: 'Your stories could not be opened',
  failed: 'Your stories could not be opened',
  missing: 'Your saved stories are missing',
};

const EXPLANATIONS: Record<Problem['kind'], string> = {
  corrupt: 'The database in this browser is damaged. Restore a backup, or start fresh: the damaged file is kept aside, not deleted.',
  failed: 'The database failed to open. Restore a backup, or start fresh: the current file is kept aside, not deleted.',
  missing:
    'This browser had stories here before, but the database is gone (site data cleared, or storage evicted). Restore a backup, or start fresh.',
};

/** Never a blank page: what went wrong, and the ways out. */
export function DatabaseProblem(props: { problem: Problem; client: AppClient; onResolved: () => void }) {
  const { run: attempt, busy, error } = createAction();
  const run = (action: () => Promise<unknown>) =>
    attempt(async () => {
      await action();
      props.onResolved();
    });

  const restore = (event: Event) => {
    const input = event.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (file) void run(async () => props.client.admin.restoreBackup(file));
  };

  return (
    <main class="problem" aria-labelledby="problem-title">
      <h1 id="problem-title">{TITLES[props.problem.kind]}</h1>
      <p>{EXPLANATIONS[props.problem.kind]}</p>
      <details>
        <summary>Details</summary>
        <pre>{props.problem.detail}</pre>
      </details>
      <Show when={error()}>{(message) => <p class="error" role="alert">{message()}</p>}</Show>
      <div class="row">
        <label class="button primary" aria-disabled={busy()}>
          Restore from a backup file…
          <input type="file" accept={BACKUP_ACCEPT} class="visually-hidden" disabled={busy()} onChange={restore} />
        </label>
        <button type="button" disabled={busy()} onClick={() => void run(() => props.client.admin.startFresh())}>
          Start fresh
        </button>
      </div>
    </main>
  );
}
