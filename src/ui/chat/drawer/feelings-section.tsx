import { createSignal, For, Show } from 'solid-js';
import { t } from '../../i18n/index.ts';
import type { EditTarget } from '../../../engine/for-ui.ts';
import { Editable } from '../editable.tsx';
import type { DrawerScope } from './drawer-scope.ts';
import { ValueOrigin } from './value-origin.tsx';

/** Feelings: how each feels about the other (affinity, trust, a summary) and what they know, all editable. */
export function FeelingsSection(props: { d: DrawerScope }) {
  const d = props.d;
  const [newFact, setNewFact] = createSignal<Record<string, string>>({});
  return (
    <section aria-labelledby="drawer-feelings">
      <h2 id="drawer-feelings">{t('drawer.feelings')}</h2>
      <Show when={d.drawer().edges.length > 0} fallback={<p class="muted">{t('drawer.feelingsNone')}</p>}>
        <ul class="plain edges">
          <For each={d.drawer().edges}>
            {(edge) => (
              <li data-testid="edge" data-source={edge.source} data-target={edge.target}>
                <p class="edge-title">
                  {d.name(edge.source)} → {d.name(edge.target)}
                </p>
                <For each={(['affinity', 'trust'] as const)}>
                  {(field) => {
                    const label = field === 'affinity' ? t('feelings.affinity') : t('feelings.trust');
                    const about = (what: string) => t('feelings.meter', what, d.name(edge.source), d.name(edge.target));
                    const target: EditTarget = { type: 'edge', source: edge.source, target: edge.target };
                    return (
                      <div class="meter-row">
                        <span>{label}</span>
                        <meter min={0} max={100} value={edge[field]} aria-label={about(label)} />
                        <Editable
                          label={about(label.toLowerCase())}
                          kind="score"
                          value={Math.round(edge[field])}
                          edited={d.edited(target, field)}
                          save={d.edit(target, field)}
                          actions={<ValueOrigin d={d} target={target} field={field} label={about(label.toLowerCase())} />}
                        >
                          <span data-testid={field}>{Math.round(edge[field])}</span>
                        </Editable>
                      </div>
                    );
                  }}
                </For>
                <p class="small-text">
                  <Editable
                    label={t('feelings.howSees', d.name(edge.source), d.name(edge.target))}
                    kind="long"
                    value={edge.summary}
                    edited={d.edited({ type: 'edge', source: edge.source, target: edge.target }, 'summary')}
                    save={d.edit({ type: 'edge', source: edge.source, target: edge.target }, 'summary')} actions={<ValueOrigin d={d} target={{ type: 'edge', source: edge.source, target: edge.target }} field="summary" label={t('feelings.howSees', d.name(edge.source), d.name(edge.target))} />}>
                    {edge.summary || <span class="muted">{t('feelings.noSummary')}</span>}
                  </Editable>
                </p>
                <ul class="knowledge small-text" aria-label={t('feelings.knows', d.name(edge.source), d.name(edge.target))}>
                  <For each={edge.knowledge}>
                    {(fact) => (
                      <li>
                        {fact}
                        <button
                          type="button"
                          class="small quiet"
                          aria-label={t('feelings.forget', fact)}
                          disabled={d.busy()}
                          onClick={() => void d.act(() => d.edit({ type: 'edge', source: edge.source, target: edge.target }, 'knowledge')(edge.knowledge.filter((f) => f !== fact)))}
                        >
                          ✕
                        </button>
                      </li>
                    )}
                  </For>
                </ul>
                <p class="small-text">
                  <Show when={d.edited({ type: 'edge', source: edge.source, target: edge.target }, 'knowledge')}>
                    <span class="edited-mark">{t('feelings.factsEdited')}</span>
                  </Show>
                  <ValueOrigin d={d} target={{ type: 'edge', source: edge.source, target: edge.target }} field="knowledge" label={t('feelings.knowsLower', d.name(edge.source), d.name(edge.target))} />
                </p>
                <form
                  class="add-fact"
                  onSubmit={(event) => {
                    event.preventDefault();
                    const key = `${edge.source}:${edge.target}`;
                    const fact = (newFact()[key] ?? '').trim();
                    if (!fact) return;
                    void d.act(async () => {
                      await d.edit({ type: 'edge', source: edge.source, target: edge.target }, 'knowledge')([...edge.knowledge, fact]);
                      setNewFact((all) => ({ ...all, [key]: '' }));
                    });
                  }}
                >
                  <input
                    aria-label={t('feelings.newFact', d.name(edge.source), d.name(edge.target))}
                    placeholder={t('feelings.addFact')}
                    value={newFact()[`${edge.source}:${edge.target}`] ?? ''}
                    onInput={(e) => setNewFact((all) => ({ ...all, [`${edge.source}:${edge.target}`]: e.currentTarget.value }))}
                  />
                  <button type="submit" class="small" disabled={d.busy()}>
                    {t('feelings.add')}
                  </button>
                </form>
              </li>
            )}
          </For>
        </ul>
      </Show>
    </section>
  );
}
