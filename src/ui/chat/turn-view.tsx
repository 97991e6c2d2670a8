import { createSignal, onCleanup, Show } from 'solid-js';
import { t } from '../i18n/index.ts';
import type { TranscriptTurn } from '../../engine/for-ui.ts';
import { Avatar } from '../avatar.tsx';
import { MenuButton, type MenuHandle, type MenuItem } from '../menu.tsx';
import type { ChatScope } from './chat-scope.ts';
import { replyProblem } from './reply-problem.ts';
import { StoryText } from './story-text.tsx';
import { TurnEditor } from './turn-editor.tsx';
import { VersionSwitcher } from './version-switcher.tsx';
import { ThinkingBlock } from './thinking-block.tsx';

/** How long a finger rests on a message before its actions open. */
const LONG_PRESS_MS = 500;

/**
 * One turn of the story. At rest it shows its speaker, its text and (on the latest reply) its
 * versions and Regenerate; every other action is in its "Message actions" menu, one click, tap,
 * long-press, right-click or key away.
 */
export function TurnView(props: { chat: ChatScope; turn: TranscriptTurn; next: TranscriptTurn | undefined }) {
  const chat = props.chat;
  const streaming = () => Boolean(chat.pages.streaming());
  const editingThis = () => chat.editing()?.turnId === props.turn.turnId;
  const done = () => props.turn.status !== 'streaming';
  const isLatestReply = () => props.turn === chat.pages.last() && chat.canRedoLast();
  /** Regenerate at hand, under the latest reply: not while it streams, nor when its problem banner offers its own. */
  const regenerateAtHand = () => isLatestReply() && !streaming() && !replyProblem(props.turn);
  // The latest reply's versions; and a reply where the story forks (two versions each carry what followed them).
  const versionsShown = () => (props.turn === chat.pages.last() ? chat.versions() : props.turn.versions?.fork && !streaming() ? props.turn.versions : null);
  const [copied, setCopied] = createSignal(false);
  const failedEmpty = () => props.turn.role === 'assistant' && replyProblem(props.turn)?.action === 'Retry' && !chat.textOf(props.turn).trim();
  let menu: MenuHandle | undefined;

  const copy = async () => {
    await navigator.clipboard.writeText(chat.textOf(props.turn));
    setCopied(true);
    setTimeout(() => setCopied(false), 2_000);
  };
  const items = (): MenuItem[] => {
    const turn = props.turn;
    const busy = chat.sending() || streaming();
    const list: MenuItem[] = [{ label: t('chat.copy'), onSelect: () => void copy().catch(() => undefined) }];
    if (done() && !editingThis()) list.push({ label: t('chat.edit'), onSelect: () => chat.startEditing(turn) });
    if (isLatestReply() && !streaming()) {
      list.push({ label: t('chat.regenerate'), onSelect: chat.regenerate, disabled: busy, hint: t('chat.thisReplyAgain') });
      if (turn.text.trim()) list.push({ label: t('chat.continue'), onSelect: chat.continueReply, disabled: busy, hint: t('chat.goesOn') });
    }
    if (turn.role === 'assistant' && done()) {
      const usage = turn.completionTokens !== null ? t('chat.tokens', turn.promptTokens ?? 0, turn.completionTokens) : undefined;
      list.push({ label: t('chat.whyThisReply'), onSelect: () => chat.inspect(turn.turnId), hint: usage });
    }
    if (props.next && !streaming()) list.push({ label: t('chat.rewindToHere'), onSelect: () => chat.rewindTo(props.next!.seq) });
    if (done() && !streaming()) list.push({ label: t('chat.branchFromHere'), onSelect: () => chat.branchFrom(turn.seq), disabled: chat.sending(), hint: t('chat.branchHint') });
    if (done()) list.push({ label: t('chat.delete'), onSelect: () => chat.setHidden(turn.turnId, true), disabled: chat.sending(), danger: true });
    return list;
  };

  // A finger resting on the message opens its actions (iOS sends no contextmenu for it).
  let press: { timer: ReturnType<typeof setTimeout>; x: number; y: number } | undefined;
  const endPress = () => {
    if (press) clearTimeout(press.timer);
    press = undefined;
  };
  onCleanup(endPress);
  const selectedInside = (article: HTMLElement) => {
    const selection = getSelection();
    return Boolean(selection && !selection.isCollapsed && article.contains(selection.anchorNode));
  };

  return (
    <article
      class={`turn ${props.turn.role}${chat.pages.beforeReset(props.turn) ? ' before-reset' : ''}`}
      data-status={props.turn.status}
      data-turn-id={props.turn.turnId}
      data-seq={props.turn.seq}
      onContextMenu={(event) => {
        // Selected words keep the browser's own menu (to copy them, look them up).
        if (editingThis() || selectedInside(event.currentTarget)) return;
        event.preventDefault();
        menu?.open({ x: event.clientX, y: event.clientY });
      }}
      onPointerDown={(event) => {
        if (event.pointerType !== 'touch' || editingThis()) return;
        const { clientX: x, clientY: y } = event;
        press = { x, y, timer: setTimeout(() => menu?.open({ x, y }), LONG_PRESS_MS) };
      }}
      onPointerMove={(event) => {
        if (press && Math.hypot(event.clientX - press.x, event.clientY - press.y) > 10) endPress();
      }}
      onPointerUp={endPress}
      onPointerCancel={endPress}
    >
      <Avatar client={chat.client} name={props.turn.speakerName} hash={props.turn.speakerAvatar} size="portrait" />
      <div class="turn-body">
      <div class="speaker">
        <strong>{props.turn.speakerName}</strong>
        <Show when={props.turn.edited}>
          <span class="edited-mark">{t('chat.edited')}</span>
        </Show>
        <Show when={props.turn.status === 'streaming'}>
          <span class="typing" aria-label={t('chat.writing')}>
            <i />
            <i />
            <i />
          </span>
        </Show>
        <Show when={copied()}>
          <span class="muted small-text" role="status">
            {t('chat.copied')}
          </span>
        </Show>
        <span class="speaker-spacer" />
        <MenuButton label={t('chat.actions')} class="icon-button message-actions" items={items} ref={(handle) => (menu = handle)}>
          <span aria-hidden="true">⋯</span>
        </MenuButton>
      </div>
      <Show when={props.turn.role === 'assistant' ? chat.thinkingOf(props.turn) : null}>
        {(thinking) => <ThinkingBlock thinking={thinking()} ended={props.turn.status !== 'streaming'} />}
      </Show>
      <Show
        when={editingThis()}
        fallback={
          <Show
            when={failedEmpty()}
            fallback={
              <div class="story-text" dir="auto">
                <StoryText text={chat.textOf(props.turn)} ooc={chat.ooc()} live={props.turn.status === 'streaming'} />
              </div>
            }
          >
            {/* Nothing arrived: not an empty message, and (being empty) in no prompt and no analysis. */}
            <p class="failed-reply" data-testid="failed-reply">
              {t('chat.noReply')}
            </p>
          </Show>
        }
      >
        <TurnEditor chat={chat} turn={props.turn} />
      </Show>
      <Show when={versionsShown() || regenerateAtHand()}>
        <div class="turn-footer">
          <Show when={versionsShown()}>{(shown) => <VersionSwitcher chat={chat} shown={shown()} {...(props.turn === chat.pages.last() ? {} : { at: props.turn.seq })} />}</Show>
          <Show when={regenerateAtHand()}>
            <button type="button" class="small quiet regenerate" onClick={chat.regenerate} disabled={chat.sending()} title={t('chat.thisReplyAgain')}>
              {t('chat.regenerate')}
            </button>
          </Show>
        </div>
      </Show>
      </div>
    </article>
  );
}
