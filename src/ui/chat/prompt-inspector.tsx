import { createResource, For, onMount, Show } from 'solid-js';
import { TOKENIZER_NAMES, type CountedWith, type PromptReport, type TokenizerFamily } from '../../engine/for-ui.ts';
import type { AppClient } from '../engine-client.ts';
import { t } from '../i18n/index.ts';

const TIERS = [
  { tier: 'must', title: () => t('inspector.must') },
  { tier: 'should', title: () => t('inspector.should') },
  { tier: 'nice', title: () => t('inspector.nice') },
] as const;

const percent = (n: number | null) => (n === null ? '—' : `${Math.round(n * 100)}%`);

/**
 * "Why this reply?": the prompt that produced a reply, as stored with it. Every part by tier with
 * its token count, what was left out to fit, and each memory that went in with why it was chosen.
 */
export function PromptInspector(props: { client: AppClient; chatId: string; turnId: string; onClose: () => void }) {
  let dialog: HTMLDialogElement | undefined;
  const [report] = createResource(() => props.client.engine.replyPrompt(props.chatId, props.turnId));
  onMount(() => dialog?.showModal());
  return (
    <dialog
      ref={dialog}
      class="rewind-dialog inspector"
      aria-labelledby="inspector-title"
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      <h2 id="inspector-title">{t('inspector.title')}</h2>
      <Show when={!report.loading} fallback={<p class="muted">{t('inspector.reading')}</p>}>
        <Show when={report()} fallback={<p class="muted">{t('inspector.none')}</p>}>
          {(shown) => <Report report={shown()} />}
        </Show>
      </Show>
      <div class="dialog-actions">
        <button type="button" onClick={() => props.onClose()}>
          {t('origin.close')}
        </button>
      </div>
    </dialog>
  );
}

/** Which tokenizer counted the prompt, in the player's words: the model's own, cl100k and its margin, or lengths while one loaded. */
function countedWithText(countedWith: CountedWith, family: TokenizerFamily | null): string {
  if (countedWith === 'cl100k') return t('limits.countedCl100k');
  if (countedWith === 'estimate') return t('limits.countedEstimate', family ? TOKENIZER_NAMES[family] : 'cl100k');
  return t('limits.countedWith', TOKENIZER_NAMES[countedWith]);
}

function Report(props: { report: PromptReport }) {
  const dropped = () => props.report.parts.filter((p) => !p.kept);
  return (
    <>
      <p data-testid="prompt-total">
        {t('inspector.total', props.report.tokens, props.report.budget.soft, props.report.budget.hard)}
        <Show when={dropped().length > 0}>{t('inspector.leftOutToFit', dropped().length)}</Show>
      </p>
      <Show when={props.report.contextLength}>
        {(context) => (
          <p class="muted small-text" data-testid="budget-from-model">
            {t('limits.sized', context())}
          </p>
        )}
      </Show>
      <Show when={props.report.countedWith}>
        {(countedWith) => (
          <p class="muted small-text" data-testid="counted-with">
            {countedWithText(countedWith(), props.report.tokenizerFamily ?? null)}
          </p>
        )}
      </Show>
      <Show when={props.report.stoppedAt}>
        {(stop) => (
          <p data-testid="reply-cut">
            {t('stops.cutAt', stop().replaceAll('\n', '↵'))}
          </p>
        )}
      </Show>
      <Show when={props.report.trimmedLabel}>
        {(label) => (
          <p data-testid="label-trimmed">
            {t('stops.labelTrimmed', label())}
          </p>
        )}
      </Show>
      <For each={TIERS}>
        {({ tier, title }) => (
          <Show when={props.report.parts.some((p) => p.tier === tier)}>
            <section class="inspector-tier" data-tier={tier}>
              <h3>{title()}</h3>
              <ul class="plain">
                <For each={props.report.parts.filter((p) => p.tier === tier)}>
                  {(part) => (
                    <li data-kept={part.kept ? 'yes' : 'no'}>
                      <Show
                        when={part.text}
                        fallback={
                          <div class="part-row">
                            <span>{part.label}</span>
                            <PartCost tokens={part.tokens} kept={part.kept} />
                          </div>
                        }
                      >
                        <details>
                          <summary class="part-row">
                            <span>{part.label}</span>
                            <PartCost tokens={part.tokens} kept={part.kept} />
                          </summary>
                          <pre class="part-text">{part.text}</pre>
                        </details>
                      </Show>
                    </li>
                  )}
                </For>
              </ul>
            </section>
          </Show>
        )}
      </For>
      <Show when={props.report.memories.length > 0}>
        <section class="inspector-tier">
          <h3>{t('inspector.memories')}</h3>
          <table class="memory-scores">
            <thead>
              <tr>
                <th scope="col">{t('inspector.memory')}</th>
                <th scope="col">{t('inspector.why')}</th>
                <th scope="col">{t('inspector.score')}</th>
                <th scope="col">{t('inspector.significance')}</th>
                <th scope="col">{t('inspector.match')}</th>
                <th scope="col">{t('inspector.recency')}</th>
                <th scope="col">{t('inspector.matched')}</th>
              </tr>
            </thead>
            <tbody>
              <For each={props.report.memories}>
                {(m) => (
                  <tr data-testid="inspected-memory">
                    <td>{m.summary}</td>
                    <td>{m.pinned ? t('inspector.pinned') : t('inspector.recalled')}</td>
                    <td>{m.score === null ? '—' : m.score.toFixed(2)}</td>
                    <td>{m.significance}/3</td>
                    <td>{percent(m.relevance)}</td>
                    <td>{percent(m.recency)}</td>
                    <td>{m.matched.join(', ') || '—'}</td>
                  </tr>
                )}
              </For>
            </tbody>
          </table>
        </section>
      </Show>
    </>
  );
}

function PartCost(props: { tokens: number; kept: boolean }) {
  return (
    <span class="part-cost">
      {t('inspector.tokens', props.tokens)}
      <Show when={!props.kept}>
        <span class="dropped">{t('inspector.leftOut')}</span>
      </Show>
    </span>
  );
}
