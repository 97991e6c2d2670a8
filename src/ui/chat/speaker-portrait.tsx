import { Show } from 'solid-js';
import { Avatar } from '../avatar.tsx';
import { look } from '../look.ts';
import type { ChatScope } from './chat-scope.ts';
import { t } from '../i18n/index.ts';

/**
 * On a wide screen, a large portrait of who is speaking (the newest reply's speaker: the host, or
 * a guest given the turn) beside the story. Settings → Look can hide it; narrow screens never show it.
 */
export function SpeakerPortrait(props: { chat: ChatScope }) {
  const speaker = () => [...props.chat.pages.turns()].reverse().find((turn) => turn.role === 'assistant' && !turn.hidden);
  return (
    <Show when={look().portrait && speaker()}>
      {(turn) => (
        <aside class="speaker-portrait" aria-label={t('story.whoSpeaking')} data-testid="speaker-portrait">
          <Avatar client={props.chat.client} name={turn().speakerName} hash={turn().speakerAvatar} size="stage" />
          <strong>{turn().speakerName}</strong>
        </aside>
      )}
    </Show>
  );
}
