import { Show } from 'solid-js';
import type { TranscriptTurn } from '../../engine/for-ui.ts';
import { t } from '../i18n/index.ts';
import type { ChatScope } from './chat-scope.ts';

/** "Edit" on a turn: its text in place, with what saving will do said before the player saves. */
export function TurnEditor(props: { chat: ChatScope; turn: TranscriptTurn }) {
  const chat = props.chat;
  return (
    <div class="turn-editor">
      <textarea
        aria-label={t('story.editMessage')}
        rows={Math.min(12, Math.max(3, Math.ceil((chat.editing()?.text.length ?? 0) / 70)))}
        value={chat.editing()?.text ?? ''}
        ref={(el) => queueMicrotask(() => el.focus())}
        onInput={(event) => chat.setEditing({ turnId: props.turn.turnId, text: event.currentTarget.value })}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            event.preventDefault();
            chat.closeEditor();
          } else if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
            event.preventDefault();
            chat.saveEdit(false);
          }
        }}
      />
      <p class="muted small-text">{chat.editHint(props.turn)}</p>
      <div class="editor-actions">
        <button type="button" onClick={() => chat.closeEditor()}>
          {t('edit.cancel')}
        </button>
        <Show when={props.turn === chat.pages.latestOfYours() && chat.pages.last()?.role === 'assistant'}>
          <button type="button" onClick={() => chat.saveEdit(true)} disabled={chat.sending()}>
            {t('story.saveAndRegenerate')}
          </button>
        </Show>
        <button type="submit" onClick={() => chat.saveEdit(false)} disabled={chat.sending()}>
          {t('edit.save')}
        </button>
      </div>
    </div>
  );
}
