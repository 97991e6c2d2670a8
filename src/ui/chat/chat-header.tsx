import { createSignal, onCleanup, Show } from 'solid-js';
import { t } from '../i18n/index.ts';
import { formatStoryTime } from '../i18n/format.ts';
import { createLiveQuery } from '../live-query.ts';
import { MenuButton, type MenuItem } from '../menu.tsx';
import { prepareBackground } from '../picture-input.ts';
import type { ChatScope } from './chat-scope.ts';
import { Editable } from './editable.tsx';
import { TranscriptJumps } from './transcript-jumps.tsx';

/** Where the header is one tight line (styles.css says the same). */
const PHONE = '(max-width: 640px)';

/** One line: the chat's title (editable), its clock, place and weather, the quiet "updating memories" marker, Story state and the chat's menu (its background, Delete chat). */
export function ChatHeader(props: { chat: ChatScope; drawerOpen: boolean; onToggleDrawer: () => void; onDelete: () => void; onRecap: () => void }) {
  const chat = props.chat;
  const { client, chatId, header } = chat;
  let backgroundInput: HTMLInputElement | undefined;
  const setBackground = (choice: string) => void chat.run(() => client.engine.setChatBackground(chatId(), choice));
  const chooseBackground = (file: File) => void chat.run(async () => client.engine.setChatBackground(chatId(), await client.engine.addImage(await prepareBackground(file))));
  const backgroundActions = (): MenuItem[] => {
    const background = header()?.background;
    if (!background) return [];
    return [
      { label: t('header.chooseBackground'), onSelect: () => backgroundInput?.click(), hint: t('header.chooseBackgroundHint') },
      ...(background.choice !== 'host' && background.host ? [{ label: t('header.botBackground'), onSelect: () => setBackground('host') }] : []),
      ...(background.shown ? [{ label: t('header.noBackground'), onSelect: () => setBackground('none') }] : []),
    ];
  };
  let askDate = () => {};
  const phoneQuery = window.matchMedia(PHONE);
  const [phone, setPhone] = createSignal(phoneQuery.matches);
  const onPhoneChange = () => setPhone(phoneQuery.matches);
  phoneQuery.addEventListener('change', onPhoneChange);
  onCleanup(() => phoneQuery.removeEventListener('change', onPhoneChange));
  const chatActions = (): MenuItem[] => [
    ...(phone()
      ? [
          { label: t('story.jumpStart'), onSelect: () => chat.goTo({ index: 0 }) },
          { label: t('story.jumpDate'), onSelect: () => askDate() },
        ]
      : []),
    { label: t('header.previously'), onSelect: props.onRecap, hint: t('header.previouslyHint') },
    ...backgroundActions(),
    {
      label: t('header.deleteChat'),
      onSelect: props.onDelete,
      disabled: chat.sending() || Boolean(chat.pages.streaming()) || Boolean(header()?.deleted),
      hint: t('header.deleteChatHint'),
      danger: true,
    },
  ];
  const analysis = createLiveQuery(client, { query: 'analysisStatus', chatId }, () => client.engine.analysisStatus(chatId()));
  return (
    <>
      <header class="chat-header">
        <div class="chat-heading">
          <Show when={header()} fallback={<h1 id="chat-title">{t('header.chat')}</h1>}>
            {(h) => (
              <div class="chat-title-line">
                <Editable label={t('header.chatTitle')} value={h().title} save={(title: string) => client.engine.editState(chatId(), { type: 'chat' }, 'title', title)}>
                  <h1 id="chat-title">{h().title}</h1>
                </Editable>
              </div>
            )}
          </Show>
          <p class="muted chat-meta">
            <Show when={header()}>{(h) => <span data-testid="fiction-time">{formatStoryTime(h().fictionTime)}</span>}</Show>
            <Show when={header()?.place}>{(place) => <span> · {place().name}</span>}</Show>
            <Show when={header()?.weather}>{(weather) => <span> · {weather()}</span>}</Show>
            <Show when={(analysis()?.pending ?? 0) > 0}>
              <span class="updating" role="status" data-testid="updating-memories">
                {' '}
                · {t('header.updating')}
              </span>
            </Show>
          </p>
        </div>
        <div class="row header-actions">
          <TranscriptJumps goTo={chat.goTo} fictionTime={header()?.fictionTime} askDate={(open) => (askDate = open)} />
          <button type="button" class="small quiet drawer-toggle" aria-expanded={props.drawerOpen} aria-controls="story-drawer" onClick={props.onToggleDrawer}>
            {props.drawerOpen ? t('header.hideStoryState') : t('header.storyState')}
          </button>
          <MenuButton label={t('header.actions')} class="icon-button" items={chatActions}>
            <span aria-hidden="true">⋯</span>
          </MenuButton>
          <input
            ref={(el) => (backgroundInput = el)}
            type="file"
            accept="image/*"
            class="visually-hidden"
            tabIndex={-1}
            aria-label={t('header.backgroundPicture')}
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              event.currentTarget.value = '';
              if (file) chooseBackground(file);
            }}
          />
        </div>
      </header>
      <Show when={header()?.deleted}>
        {(what) => (
          <p class="banner warn" role="status" data-banner="chat-deleted">
            <span class="banner-text">
              {what() === 'chat' ? t('header.chatDeleted') : t('header.botDeleted')}{' '}
              <button type="button" class="small" onClick={() => void chat.run(() => (what() === 'chat' ? client.engine.restoreChat(chatId()) : client.engine.restoreBot(header()!.botId)))}>
                {what() === 'chat' ? t('header.restoreChat') : t('header.restoreBot')}
              </button>
            </span>
          </p>
        )}
      </Show>
    </>
  );
}
