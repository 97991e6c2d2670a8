import { Show } from 'solid-js';
import type { TranscriptTurn } from '../../engine/for-ui.ts';
import type { ChatScope } from './chat-scope.ts';

/** ‹ 2/3 ›: the versions of the latest reply (← and → flip them too, see ChatPage). */
export function VersionSwitcher(props: { chat: ChatScope; shown: NonNullable<TranscriptTurn['versions']> }) {
  const chat = props.chat;
  return (
    <nav class="versions" aria-label="Versions of this reply">
      <button type="button" class="small quiet" aria-label="Previous version" title="Previous version (←)" disabled={props.shown.number <= 1 || chat.sending()} onClick={() => chat.chooseVersion(props.shown.number - 1)}>
        ‹
      </button>
      <span data-testid="version" aria-label={`Version ${props.shown.number} of ${props.shown.of}`}>
        {props.shown.number}/{props.shown.of}
      </span>
      <button type="button" class="small quiet" aria-label="Next version" title="Next version (→)" disabled={props.shown.number >= props.shown.of || chat.sending()} onClick={() => chat.chooseVersion(props.shown.number + 1)}>
        ›
      </button>
      <Show when={props.shown.otherDevice}>
        <span class="muted other-device" data-testid="version-elsewhere" title="Written on another device you sync with; the other answers are the versions beside it">
          from another device
        </span>
      </Show>
    </nav>
  );
}
