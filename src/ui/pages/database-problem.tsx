import { Show } from 'solid-js';
import { BACKUP_ACCEPT } from '../backup-file.ts';
import { createAction } from '../action.ts';
import type { AppClient } from '../engine-client.ts';
import { t } from '../i18n/index.ts';

export type Problem = { kind: 'corrupt' | 'failed' | 'missing' | 'no-room'; detail: string };


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
      <h1 id="problem-title">{t(`problemPage.titles.${props.problem.kind}`)}</h1>
      <p>{t(`problemPage.explanations.${props.problem.kind}`)}</p>
      <details>
        <summary>{t('problemPage.details')}</summary>
        <pre>{props.problem.detail}</pre>
      </details>
      <Show when={error()}>{(message) => <p class="error" role="alert">{message()}</p>}</Show>
      <Show
        when={props.problem.kind !== 'no-room'}
        fallback={
          // No room: nothing was changed, and a fresh start or a restore would need room too.
          <div class="row">
            <button type="button" class="button primary" onClick={() => location.reload()}>
              {t('problemPage.reload')}
            </button>
          </div>
        }
      >
        <div class="row">
          <label class="button primary" aria-disabled={busy()}>
            {t('problemPage.restore')}
            <input type="file" accept={BACKUP_ACCEPT} class="visually-hidden" disabled={busy()} onChange={restore} />
          </label>
          <button type="button" disabled={busy()} onClick={() => void run(() => props.client.admin.startFresh())}>
            {t('problemPage.fresh')}
          </button>
        </div>
      </Show>
    </main>
  );
}
