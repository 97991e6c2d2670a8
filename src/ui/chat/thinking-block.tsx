import { t } from '../i18n/index.ts';

/**
 * A thinking model's thinking, folded above its reply (issue 35, part 1): "Thinking…" while it
 * thinks, "Thought for N s" once the reply began, "Thinking stopped" when the reply ended while it
 * still thought. Opened, it shows the thinking as plain text: never markup, never the story.
 */
export function ThinkingBlock(props: { thinking: { text: string; ms: number | null; live: boolean }; ended: boolean }) {
  const summary = () =>
    props.thinking.live && !props.ended
      ? t('thinking.live')
      : props.thinking.ms !== null
        ? t('thinking.took', Math.max(1, Math.round(props.thinking.ms / 1000)))
        : t('thinking.stopped');
  return (
    <details class="thinking" data-testid="thinking" data-live={props.thinking.live && !props.ended ? 'true' : 'false'}>
      <summary>{summary()}</summary>
      <div class="thinking-text" dir="auto">
        {props.thinking.text}
      </div>
    </details>
  );
}
