import { Show } from 'solid-js';
import { t } from '../i18n/index.ts';
import type { TranscriptTurn } from '../../engine/for-ui.ts';
import type { ChatScope } from './chat-scope.ts';

/**
 * ‹ 2/3 ›: the versions of the latest reply (← and → flip them too, see ChatPage), or of a reply
 * where the story forks (`at`, its seq), each version bringing the turns that followed it.
 */
export function VersionSwitcher(props: { chat: ChatScope; shown: NonNullable<TranscriptTurn['versions']>; at?: number }) {
  const chat = props.chat;
  const choose = (number: number) => chat.chooseVersion(number, props.at === undefined ? undefined : { at: props.at, shown: props.shown });
  return (
    <nav class="versions" aria-label={t('chat.versions')}>
      <button type="button" class="small quiet" aria-label={t('chat.previousVersion')} title={t('chat.previousVersionKey')} disabled={props.shown.number <= 1 || chat.sending()} onClick={() => choose(props.shown.number - 1)}>
        ‹
      </button>
      <span data-testid="version" aria-label={t('chat.versionOf', props.shown.number, props.shown.of)}>
        {props.shown.number}/{props.shown.of}
      </span>
      <button type="button" class="small quiet" aria-label={t('chat.nextVersion')} title={t('chat.nextVersionKey')} disabled={props.shown.number >= props.shown.of || chat.sending()} onClick={() => choose(props.shown.number + 1)}>
        ›
      </button>
      <Show when={props.shown.fork}>
        <span class="muted fork" data-testid="story-forks" title={t('chat.forkHint')}>
          {t('chat.fork')}
        </span>
      </Show>
      <Show when={props.shown.otherDevice}>
        <span class="muted other-device" data-testid="version-elsewhere" title={t('moreWords.otherDeviceHint')}>
          {t('moreWords.otherDevice')}
        </span>
      </Show>
    </nav>
  );
}
