import { useNavigate, useParams } from '@solidjs/router';
import { createEffect, createSignal, on, onCleanup, onMount, Show } from 'solid-js';
import { useClient } from '../context.ts';
import { ChatBackdrop } from './chat-backdrop.tsx';
import { ChatHeader } from './chat-header.tsx';
import { createChatScope } from './chat-scope.ts';
import { Composer } from './composer.tsx';
import { PromptInspector } from './prompt-inspector.tsx';
import { RecapCard } from './recap-card.tsx';
import { look } from '../look.ts';
import { errorMessage, replyProblem } from './reply-problem.ts';
import { RewindDialog } from './rewind-dialog.tsx';
import { SpeakerPortrait } from './speaker-portrait.tsx';
import { StoryDrawer } from './drawer/story-drawer.tsx';
import { createTranscriptPages } from './transcript-pages.ts';
import { firstRowInView, TranscriptView } from './transcript-view.tsx';
import { t } from '../i18n/index.ts';
import { createSyncStatus, storyArriving } from '../sync-status.ts';

const DRAWER_KEY = 'roleplay-engine/drawer';

/** An open chat: its header, the story, what went wrong with the last reply, the composer, and the story drawer beside. */
export function ChatPage() {
  const client = useClient();
  const params = useParams<{ id: string }>();
  const navigate = useNavigate();
  const chatId = () => params.id;
  let scroller: HTMLDivElement | undefined;
  // An earlier page loaded above the view keeps the reader's place: what they were looking at stays where it was.
  // Turns loaded or let go above the view would move what the reader is reading: the first row in
  // view stays where it was on screen.
  const keepPlace = async (change: () => Promise<void>) => {
    const anchor = scroller && firstRowInView(scroller);
    const was = anchor?.getBoundingClientRect().top ?? 0;
    await change();
    if (scroller && anchor?.isConnected) scroller.scrollTop += anchor.getBoundingClientRect().top - was;
  };
  const pages = createTranscriptPages(client, chatId, keepPlace);
  const chat = createChatScope(client, chatId, pages, navigate);
  const sync = createSyncStatus(client);
  const arriving = () => storyArriving(sync.status());

  // The drawer stays open or closed as the reader left it; wide screens start with it open.
  // On a phone the drawer takes the whole screen, so a chat always opens on its story there; the
  // remembered choice is a wide screen's.
  const phone = () => window.matchMedia('(max-width: 640px)').matches;
  const [drawerOpen, setDrawerOpen] = createSignal(
    phone() ? false : localStorage.getItem(DRAWER_KEY) === null ? window.innerWidth > 1100 : localStorage.getItem(DRAWER_KEY) === 'open',
  );
  // The story and the composer are drawn first, the drawer's sections once that frame is on
  // screen: they were a third of the script an open ran before its first paint, and their queries
  // went ahead of nothing the reader was looking at. Drawn between the first two frames they held
  // the second back, so they wait for it. The drawer's column is there from the first frame, so the
  // story does not move when they arrive.
  const [drawerDrawn, setDrawerDrawn] = createSignal(false);
  onMount(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    let frame = requestAnimationFrame(() => (frame = requestAnimationFrame(() => (timer = setTimeout(() => setDrawerDrawn(true))))));
    onCleanup(() => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    });
  });
  const toggleDrawer = () => {
    setDrawerOpen(!drawerOpen());
    if (!phone()) localStorage.setItem(DRAWER_KEY, drawerOpen() ? 'open' : 'closed');
  };
  /** The composer's hint points here: the drawer opens on the director's note, ready to write. */
  const openDirectorNote = () => {
    if (!drawerOpen()) toggleDrawer();
    queueMicrotask(() => document.querySelector<HTMLButtonElement>('[data-testid="director-note"] .edit-button')?.click());
  };
  /** Deleting is undoable for 30 days: the chat list says so and offers Undo. */
  const deleteChat = () =>
    void chat.run(async () => {
      const title = chat.header()?.title ?? '';
      await client.engine.deleteChat(chatId());
      navigate(`/chats?deleted=${encodeURIComponent(chatId())}&title=${encodeURIComponent(title)}`);
    });
  const last = pages.last;

  // "Previously on…" when this chat is opened after a while away (Settings → Look; this device's
  // own last visit), or when asked from the chat's menu.
  const [recapOpen, setRecapOpen] = createSignal(false);
  const seenKey = () => `roleplay-engine/seen/${chatId()}`;
  const markSeen = () => localStorage.setItem(seenKey(), String(Date.now()));
  const awayLong = () => {
    const seen = Number(localStorage.getItem(seenKey()) ?? NaN);
    const after = look().recapAfter;
    return after !== 'never' && Number.isFinite(seen) && Date.now() - seen > Number(after) * 3_600_000;
  };
  createEffect(
    on(chatId, () => {
      setRecapOpen(awayLong());
      markSeen();
    }),
  );
  // A tab left in the background for hours counts as away too.
  const visibility = () => {
    if (document.visibilityState === 'visible' && awayLong()) setRecapOpen(true);
    markSeen();
  };
  document.addEventListener('visibilitychange', visibility);
  onCleanup(() => {
    document.removeEventListener('visibilitychange', visibility);
    markSeen();
  });

  return (
    <section class="chat" aria-labelledby="chat-title">
      <ChatHeader chat={chat} drawerOpen={drawerOpen()} onToggleDrawer={toggleDrawer} onDelete={deleteChat} onRecap={() => setRecapOpen(true)} />
      <div class="chat-body" data-drawer={drawerOpen() ? 'open' : 'closed'}>
        <div class="chat-main">
          <Show when={recapOpen()}>
            <RecapCard client={client} chatId={chatId()} onClose={() => setRecapOpen(false)} />
          </Show>
          <div class="story-stage">
            <ChatBackdrop chat={chat} />
            <TranscriptView chat={chat} ref={(el) => (scroller = el)} />
            <SpeakerPortrait chat={chat} />
          </div>
          <Show when={last() && !pages.streaming() ? replyProblem(last()!) : null}>
            {(problem) => (
              <div class="reply-problem" role="status" data-banner="reply-problem">
                <span>{problem().message}</span>
                <button type="button" onClick={chat.regenerate} disabled={chat.sending()}>
                  {problem().action === 'Retry' ? t('problem.retry') : t('chat.regenerate')}
                </button>
              </div>
            )}
          </Show>
          <Show when={chat.error()}>
            {(message) => (
              <p class="error" role="alert">
                {errorMessage(undefined, message())}
              </p>
            )}
          </Show>
          <Show when={chat.rewound()}>
            {(done) => (
              <div class="toast" role="status" data-testid="rewind-toast">
                <span>{t('story.rewound', done().turns)}</span>
                <button type="button" class="small" onClick={() => chat.restore(done().seq)} disabled={chat.sending()}>
                  {t('story.undo')}
                </button>
              </div>
            )}
          </Show>
          <Show when={chat.inspecting()}>
            {(turnId) => <PromptInspector client={client} chatId={chatId()} turnId={turnId()} onClose={chat.closeInspector} />}
          </Show>
          <Show when={chat.rewindFrom()}>
            {(fromSeq) => <RewindDialog client={client} chatId={chatId()} fromSeq={fromSeq()} onClose={chat.closeRewind} onRewound={chat.showRewound} />}
          </Show>
          <Show when={arriving()}>
            {(far) => (
              <div class="story-arriving" role="status" data-testid="story-arriving">
                <span>{far().total === null ? t('chat.arriving', t('sync.events', far().arrived)) : t('chat.arriving', t('sync.countOf', far().arrived, far().total!))}</span>
                <Show when={far().total} fallback={<progress aria-label={t('sync.receiving')} />}>
                  {(total) => <progress aria-label={t('sync.receiving')} value={far().arrived} max={total()} />}
                </Show>
              </div>
            )}
          </Show>
          <Composer chat={chat} onDirectorNote={openDirectorNote} arriving={() => arriving() !== null} />
        </div>
        <Show when={drawerOpen() && chat.header()}>
          {(drawer) => (
            <div id="story-drawer" class="drawer-slot">
              <Show when={drawerDrawn()}>
                <StoryDrawer client={client} chatId={chatId()} drawer={drawer()} onGoToTurn={() => phone() && toggleDrawer()} />
              </Show>
            </div>
          )}
        </Show>
      </div>
    </section>
  );
}
