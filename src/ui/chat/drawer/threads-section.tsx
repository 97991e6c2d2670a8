import { createSignal, For, Show } from 'solid-js';
import { t } from '../../i18n/index.ts';
import { THREAD_KINDS, type Thread } from '../../../engine/for-ui.ts';
import { formatStoryTime, formatStoryTimeAgo } from '../../i18n/format.ts';
import { Editable } from '../editable.tsx';
import type { DrawerScope } from './drawer-scope.ts';
import { ValueOrigin } from './value-origin.tsx';

const kindName = (kind: Thread['kind']) => t(`threads.kinds.${kind}`);

/**
 * Open threads: what the story still owes (promises, quests, secrets, unanswered questions), opened
 * by the analysis of each reply or by hand here, each settled by hand too ("Settled") or reopened.
 * The narrator is told every open one, however long ago it was opened.
 */
export function ThreadsSection(props: { d: DrawerScope }) {
  const d = props.d;
  const [kind, setKind] = createSignal<Thread['kind']>('promise');
  const [text, setText] = createSignal('');
  const open = () => d.drawer().threads.filter((thread) => thread.status === 'open');
  const settled = () => d.drawer().threads.filter((thread) => thread.status === 'resolved');
  const item = (thread: Thread) => (
    <li data-testid="thread" data-status={thread.status}>
      <span class="small-text muted">
        {kindName(thread.kind)} · <span title={formatStoryTime(thread.openedFictionTime)}>{formatStoryTimeAgo(thread.openedFictionTime, d.drawer().fictionTime)}</span>
      </span>
      <div>
        <Editable label={t('threads.label', kindName(thread.kind), thread.text.slice(0, 40))} value={thread.text} edited={d.edited({ type: 'thread', id: thread.id }, 'text')} save={d.edit({ type: 'thread', id: thread.id }, 'text')} actions={<ValueOrigin d={d} target={{ type: 'thread', id: thread.id }} label={t('threads.label', kindName(thread.kind), thread.text.slice(0, 40))} />}>
          {thread.text}
        </Editable>
      </div>
      <button
        type="button"
        class="small quiet"
        disabled={d.busy()}
        aria-label={`${thread.status === 'open' ? t('threads.settle') : t('threads.reopen')}: ${thread.text}`}
        onClick={() => void d.act(() => d.edit({ type: 'thread', id: thread.id }, 'status')(thread.status === 'open' ? 'resolved' : 'open'))}
      >
        {thread.status === 'open' ? t('threads.settle') : t('threads.reopen')}
      </button>
    </li>
  );
  return (
    <section aria-labelledby="drawer-threads">
      <h2 id="drawer-threads">{t('drawer.threads')}</h2>
      <Show when={open().length} fallback={<p class="muted small-text">{t('drawer.threadsNone')}</p>}>
        <ul class="plain threads">
          <For each={open()}>{item}</For>
        </ul>
      </Show>
      <form
        class="row add-thread"
        aria-label={t('threads.add')}
        onSubmit={(event) => {
          event.preventDefault();
          const words = text().trim();
          if (!words) return;
          void d.act(() => d.client.engine.addThread(d.chatId(), kind(), words)).then(() => !d.error() && setText(''));
        }}
      >
        <select aria-label={t('threads.kind')} value={kind()} onChange={(e) => setKind(e.currentTarget.value as Thread['kind'])}>
          <For each={THREAD_KINDS}>{(k) => <option value={k}>{kindName(k)}</option>}</For>
        </select>
        <input aria-label={t('threads.thread')} placeholder={t('threads.placeholder')} maxLength={300} value={text()} onInput={(e) => setText(e.currentTarget.value)} />
        <button type="submit" class="small" disabled={d.busy() || !text().trim()}>
          {t('threads.addButton')}
        </button>
      </form>
      <Show when={settled().length}>
        <details>
          <summary class="small-text">{t('threads.settled', settled().length)}</summary>
          <ul class="plain threads">
            <For each={settled()}>{item}</For>
          </ul>
        </details>
      </Show>
    </section>
  );
}
