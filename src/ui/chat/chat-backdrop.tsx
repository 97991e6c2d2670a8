import { Show } from 'solid-js';
import { look } from '../look.ts';
import { StoredPicture } from '../picture-field.tsx';
import type { ChatScope } from './chat-scope.ts';

/**
 * The picture behind the story (the chat's own, else its host's), under a veil of the theme's own
 * background so the text keeps its contrast; decorative, so assistive tech passes it by. Off on
 * this device when Settings → Look says so.
 */
export function ChatBackdrop(props: { chat: ChatScope }) {
  const shown = () => (look().backgrounds ? (props.chat.header()?.background.shown ?? null) : null);
  return (
    <Show when={shown()}>
      {(hash) => (
        <div class="chat-backdrop" aria-hidden="true" data-testid="chat-background" data-hash={hash()}>
          <StoredPicture client={props.chat.client} hash={hash()} class="chat-backdrop-picture" />
        </div>
      )}
    </Show>
  );
}
