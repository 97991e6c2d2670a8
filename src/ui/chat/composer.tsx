import { createEffect, createSignal, on, onCleanup, onMount, Show } from 'solid-js';
import { t } from '../i18n/index.ts';
import { MenuButton, type MenuItem } from '../menu.tsx';
import type { ChatScope } from './chat-scope.ts';
import { replyProblem } from './reply-problem.ts';

/**
 * Where the player writes: one row that grows as they type, Send (or "Let them go on" when empty),
 * Stop while a reply streams, and behind one button Impersonate, Continue, Regenerate and the
 * director's note. The hint about asides shows where there is room for it.
 */
export function Composer(props: { chat: ChatScope; onDirectorNote: () => void; arriving: () => boolean }) {
  const chat = props.chat;
  const { client, chatId, pages } = chat;
  const [draft, setDraft] = createSignal('');
  const [drafting, setDrafting] = createSignal(false);
  let input: HTMLTextAreaElement | undefined;
  onMount(() => input?.focus());
  // One row at rest, growing with what is typed up to a third of the screen (Firefox has no
  // field-sizing yet); a draft set from outside (Impersonate, after Send) fits too.
  const fitToText = (box: HTMLTextAreaElement) => {
    box.style.height = '';
    if (!box.value) return;
    box.style.height = 'auto';
    box.style.height = `${Math.min(box.scrollHeight + 2, Math.round(window.innerHeight / 3))}px`;
  };
  createEffect(on(draft, () => input && queueMicrotask(() => input && fitToText(input)), { defer: true }));

  // Once per chat, when the player starts writing: the first Send then finds the leader ready.
  let preparedFor: string | undefined;
  const prepareToSend = () => {
    if (preparedFor === chatId()) return;
    preparedFor = chatId();
    void client.engine.prepareToSend(chatId()).catch(() => undefined);
  };
  // A line sent while a reply is still being written (or its Send settling) goes as soon as the
  // reply ends, not dropped with nothing said; unless the draft changed meanwhile (a second Enter on
  // the line already sent, which the settled Send cleared). So does one sent while the story is
  // still arriving from another device, once it is whole here: written now, it would answer a story
  // this device has only part of. The player may send it anyway, knowing.
  const [waiting, setWaiting] = createSignal<string | null>(null);
  const [anyway, setAnyway] = createSignal(false);
  createEffect(on(props.arriving, (arriving) => !arriving && setAnyway(false)));
  const heldForStory = () => props.arriving() && !anyway();
  const send = () => {
    const text = draft();
    if (pages.streaming() || chat.sending() || heldForStory()) {
      if (text.trim()) setWaiting(text);
      return;
    }
    void chat.run(async () => {
      await client.engine.sendTurn(chatId(), text);
      // Only the line that went: what the player typed since (the next line) stays theirs.
      setDraft((now) => (now === text ? '' : now));
    });
  };
  createEffect(
    on([waiting, chat.sending, pages.streaming, heldForStory], ([line, sending, streaming, held]) => {
      if (line === null || sending || streaming || held) return;
      setWaiting(null);
      if (line.trim() && draft() === line) send();
    }),
  );
  const lineWaiting = () => waiting() !== null && draft() === waiting();
  /** Impersonate: the narrator's draft of your next message lands in the composer, for you to edit or send. */
  const impersonate = () =>
    void chat.run(async () => {
      setDrafting(true);
      try {
        const { text } = await client.engine.impersonate(chatId());
        // Words typed while the draft was on its way are the player's: they are never replaced.
        if (!draft().trim()) setDraft(text);
        input?.focus();
      } finally {
        setDrafting(false);
      }
    });

  // ← / → flip the latest reply's versions while nothing is being typed.
  const onArrow = (event: KeyboardEvent) => {
    if ((event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') || event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const target = event.target as HTMLElement | null;
    const typing = target instanceof HTMLInputElement || target instanceof HTMLSelectElement || Boolean(target?.isContentEditable) ||
      (target instanceof HTMLTextAreaElement && (target !== input || draft() !== ''));
    const shown = chat.versions();
    if (typing || !shown) return;
    event.preventDefault();
    chat.chooseVersion(shown.number + (event.key === 'ArrowLeft' ? -1 : 1));
  };
  window.addEventListener('keydown', onArrow);
  onCleanup(() => window.removeEventListener('keydown', onArrow));

  const last = pages.last;
  /** Impersonate, and for the latest reply Continue and Regenerate, behind one button beside Send. */
  const moreWays = (): MenuItem[] => {
    const items: MenuItem[] = [
      {
        label: drafting() ? t('chat.drafting') : t('chat.impersonate'),
        onSelect: impersonate,
        disabled: chat.sending() || Boolean(draft().trim()),
        hint: draft().trim() ? t('chat.clearToDraft') : t('chat.impersonateHint'),
      },
    ];
    // Not on the opening (the author's kickoff) nor on history before a reset.
    if (chat.canRedoLast()) {
      if (last()?.text.trim()) items.push({ label: t('chat.continue'), onSelect: chat.continueReply, disabled: chat.sending(), hint: t('chat.continueHint') });
      // A reply with a problem offers its own Regenerate or Retry, in its banner.
      if (!replyProblem(last()!)) items.push({ label: t('chat.regenerate'), onSelect: chat.regenerate, disabled: chat.sending(), hint: t('chat.regenerateHint') });
    }
    // In a group scene, any bot present can be given the turn.
    for (const voice of chat.voices()) items.push({ label: t('chat.letSpeak', voice.name), onSelect: () => chat.letSpeak(voice.id), disabled: chat.sending() });
    items.push({ label: t('chat.directorNote'), onSelect: props.onDirectorNote, hint: t('chat.directorNoteHint') });
    return items;
  };
  return (
    <form
      class="composer"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <textarea
        ref={input}
        id="composer-input"
        aria-label={t('chat.message')}
        placeholder={t('chat.placeholder', chat.ooc()[0], chat.ooc()[1])}
        rows={1}
        aria-describedby="composer-hint"
        value={draft()}
        onInput={(event) => {
          setDraft(event.currentTarget.value);
          fitToText(event.currentTarget);
          prepareToSend();
        }}
        onKeyDown={(event) => {
          if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
            event.preventDefault();
            send();
          }
        }}
      />
      <div class="composer-actions">
        <Show
          when={pages.streaming()}
          fallback={
            <>
              <MenuButton label={t('chat.moreWays')} class="icon-button composer-more" items={moreWays}>
                <span aria-hidden="true">{drafting() ? '…' : '⋯'}</span>
              </MenuButton>
              <button type="submit" class="send" disabled={chat.sending() || Boolean(pages.streaming())} title={draft().trim() ? undefined : t('chat.goOnHint')}>
                {draft().trim() ? t('chat.send') : t('chat.goOn')}
              </button>
            </>
          }
        >
          <button type="button" class="stop" onClick={chat.stop}>
            {t('chat.stop')}
          </button>
          <button type="submit" class="send" disabled>
            {t('chat.send')}
          </button>
        </Show>
      </div>
      <p class="composer-waiting small-text" role="status">
        <Show when={lineWaiting() && heldForStory() && !pages.streaming() && !chat.sending()} fallback={<Show when={lineWaiting()}>{t('chat.waiting')}</Show>}>
          {t('chat.waitingForStory')}{' '}
          <button type="button" class="link" onClick={() => setAnyway(true)} title={t('chat.sendAnywayHint')}>
            {t('chat.sendAnyway')}
          </button>
        </Show>
      </p>
      <p id="composer-hint" class="composer-hint small-text muted">
        {t('chat.hintBefore', chat.ooc()[0], chat.ooc()[1])}
        <button type="button" class="link" onClick={props.onDirectorNote}>
          {t('chat.hintLink')}
        </button>
        {t('chat.hintAfter')}
      </p>
    </form>
  );
}
