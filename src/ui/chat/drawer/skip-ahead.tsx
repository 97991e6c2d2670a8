import { createSignal, Show } from 'solid-js';
import { t } from '../../i18n/index.ts';
import type { DrawerScope } from './drawer-scope.ts';

/**
 * Moving the story's clock on: a few minutes or an hour, to the next morning, or "Skip ahead…" by
 * hours or days or to a later date and time. Each is one clock event, so the drawer's "how long ago"
 * words and the narrator's follow at once. Setting the clock back is an edit of the time itself.
 */
export function SkipAhead(props: { d: DrawerScope }) {
  const d = props.d;
  const [open, setOpen] = createSignal(false);
  const [amount, setAmount] = createSignal('2');
  const [unit, setUnit] = createSignal<'hours' | 'days'>('hours');
  const [to, setTo] = createSignal('');
  const skip = (target: Parameters<DrawerScope['client']['engine']['skipAhead']>[1]) =>
    void d.act(() => d.client.engine.skipAhead(d.chatId(), target)).then(() => !d.error() && setOpen(false));
  return (
    <div class="stack skip-ahead">
      <div class="button-row">
        <button type="button" class="small" disabled={d.busy()} onClick={() => void d.act(() => d.client.engine.advanceClock(d.chatId(), 10))}>
          {t('clock.plus10')}
        </button>
        <button type="button" class="small" disabled={d.busy()} onClick={() => void d.act(() => d.client.engine.advanceClock(d.chatId(), 60))}>
          {t('clock.plus60')}
        </button>
        <button type="button" class="small" disabled={d.busy()} onClick={() => skip({ nextMorning: true })}>
          {t('clock.nextMorning')}
        </button>
        <button type="button" class="small quiet" aria-expanded={open()} onClick={() => setOpen(!open())}>
          {t('clock.skipAhead')}
        </button>
      </div>
      <Show when={open()}>
        <form
          class="row skip-ahead-form"
          aria-label={t('clock.skipForm')}
          onSubmit={(event) => {
            event.preventDefault();
            const n = Number(amount());
            if (!Number.isInteger(n) || n < 1) return;
            skip(unit() === 'hours' ? { hours: n } : { days: n });
          }}
        >
          <input type="number" min={1} max={unit() === 'hours' ? 8760 : 3650} aria-label={t('clock.howLong')} value={amount()} onInput={(e) => setAmount(e.currentTarget.value)} />
          <select aria-label={t('clock.hoursOrDays')} value={unit()} onChange={(e) => setUnit(e.currentTarget.value as 'hours' | 'days')}>
            <option value="hours">{t('clock.hours')}</option>
            <option value="days">{t('clock.days')}</option>
          </select>
          <button type="submit" class="small" disabled={d.busy()}>
            {t('clock.skip')}
          </button>
          <span class="muted small-text">{t('clock.orTo')}</span>
          <input type="datetime-local" aria-label={t('clock.skipTo')} value={to()} onInput={(e) => setTo(e.currentTarget.value)} />
          <button type="button" class="small" disabled={d.busy() || !to()} onClick={() => skip({ to: `${to()}:00`.slice(0, 19) })}>
            {t('clock.skipToThen')}
          </button>
        </form>
      </Show>
    </div>
  );
}
