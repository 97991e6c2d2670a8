import { Show } from 'solid-js';
import { t } from '../i18n/index.ts';
import type { TranscriptTurn } from '../../engine/for-ui.ts';
import type { ChatScope } from './chat-scope.ts';

/** ‹ 2/3 ›: the versions of the latest reply (← and → flip them too, see ChatPage). */
export function VersionSwitcher(props: { chat: ChatScope; shown: NonNullable<TranscriptTurn['versions']> }) {
  const chat = props.chat;
  return (
    <nav class="versions" aria-label={t('chat.versions')}>
      <button type="button" class="small quiet" aria-label={t('chat.previousVersion')} title={t('chat.previousVersionKey')} disabled={props.shown.number <= 1 || chat.sending()} onClick={() => chat.chooseVersion(props.shown.number - 1)}>
        ‹
      </button>
      <span data-testid="version" aria-label={t('chat.versionOf', props.shown.number, props.shown.of)}>
        {props.shown.number}/{props.shown.of}
      </span>
      <button type="button" class="small quiet" aria-label={t('chat.nextVersion')} title={t('chat.nextVersionKey')} disabled={props.shown.number >= props.shown.of || chat.sending()} onClick={() => chat.chooseVersion(props.shown.number + 1)}>
        ›
      </button>
      <Show when={props.shown.otherDevice}>
        <span class="muted other-device" data-testid="version-elsewhere" title={t('moreWords.otherDeviceHint')}>
          {t('moreWords.otherDevice')}
        </span>
      </Show>
    </nav>
  );
}
