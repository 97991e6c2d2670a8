import { createSignal, For, Show } from 'solid-js';
import { t } from '../../i18n/index.ts';
import type { ChatState } from '../../../engine/for-ui.ts';
import { Editable } from '../editable.tsx';
import type { DrawerScope } from './drawer-scope.ts';
import { ValueOrigin } from './value-origin.tsx';

type Item = ChatState['items'][number];

/**
 * Items: what each carries or owns, and what lies about (issue 33, part 3), grouped by who has it.
 * Each can be renamed, moved to someone else, placed, described and marked gone; "Add an item"
 * adds one. The analysis notes and moves them as the story goes.
 */
export function ItemsSection(props: { d: DrawerScope }) {
  const d = props.d;
  const [name, setName] = createSignal('');
  const [holder, setHolder] = createSignal('you');
  const [where, setWhere] = createSignal('');
  const people = () => Object.keys(d.drawer().names);
  const groups = () => {
    const byHolder = new Map<string, Item[]>();
    for (const item of d.drawer().items) byHolder.set(item.holder, [...(byHolder.get(item.holder) ?? []), item]);
    return [...byHolder.entries()];
  };
  const whoSelect = (label: string, value: string, choose: (holder: string) => void) => (
    <select aria-label={label} value={value} disabled={d.busy()} onChange={(e) => choose(e.currentTarget.value)}>
      <For each={people()}>{(ref) => <option value={ref}>{d.name(ref)}</option>}</For>
      <option value="">{t('items.nobody')}</option>
    </select>
  );
  const row = (item: Item) => {
    const target = { type: 'item' as const, id: item.id };
    return (
      <li data-testid="item">
        <Editable label={t('items.item', item.name)} value={item.name} edited={d.edited(target, 'name')} save={d.edit(target, 'name')} actions={<ValueOrigin d={d} target={target} label={t('items.item', item.name)} />}>
          <strong>{item.name}</strong>
        </Editable>
        <div class="item-fields small-text">
          <Editable label={t('items.where', item.name)} value={item.where} edited={d.edited(target, 'where')} save={d.edit(target, 'where')}>
            <span class="muted">{t('items.whereShown')}</span>
            {item.where || '—'}
          </Editable>
          <Editable label={t('items.state', item.name)} value={item.state} edited={d.edited(target, 'state')} save={d.edit(target, 'state')}>
            <span class="muted">{t('items.stateShown')}</span>
            {item.state || '—'}
          </Editable>
          {whoSelect(t('items.whoHasThe', item.name), item.holder, (ref) => void d.act(() => d.edit(target, 'holder')(ref)))}
          <button type="button" class="small quiet" disabled={d.busy()} aria-label={t('items.goneLabel', item.name)} title={t('items.goneHint')} onClick={() => void d.act(() => d.edit(target, 'gone')(1))}>
            {t('items.gone')}
          </button>
        </div>
      </li>
    );
  };
  return (
    <section aria-labelledby="drawer-items">
      <h2 id="drawer-items">{t('drawer.items')}</h2>
      <Show when={d.drawer().items.length} fallback={<p class="muted small-text">{t('drawer.itemsNone')}</p>}>
        <For each={groups()}>
          {([ref, list]) => (
            <>
              <h3 class="small-text muted">{ref ? t('items.has', d.name(ref)) : t('items.lyingAbout')}</h3>
              <ul class="plain items" aria-label={ref ? t('items.whatHas', d.name(ref)) : t('items.whatLiesAbout')}>
                <For each={list}>{row}</For>
              </ul>
            </>
          )}
        </For>
      </Show>
      <form
        class="row add-item"
        aria-label={t('items.add')}
        onSubmit={(event) => {
          event.preventDefault();
          const words = name().trim();
          if (!words) return;
          void d.act(() => d.client.engine.addItem(d.chatId(), words, holder(), where())).then(() => !d.error() && (setName(''), setWhere('')));
        }}
      >
        <input aria-label={t('items.itemLabel')} placeholder={t('items.itemPlaceholder')} maxLength={80} value={name()} onInput={(e) => setName(e.currentTarget.value)} />
        {whoSelect(t('items.whoHasIt'), holder(), setHolder)}
        <input aria-label={t('items.whereItIs')} placeholder={t('items.wherePlaceholder')} maxLength={120} value={where()} onInput={(e) => setWhere(e.currentTarget.value)} />
        <button type="submit" class="small" disabled={d.busy() || !name().trim()}>
          {t('items.addButton')}
        </button>
      </form>
    </section>
  );
}
