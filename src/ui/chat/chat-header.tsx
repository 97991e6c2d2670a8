import { Show } from 'solid-js';
import { describeFictionTime } from '../../engine/for-ui.ts';
import { createLiveQuery } from '../live-query.ts';
import { MenuButton, type MenuItem } from '../menu.tsx';
import { prepareBackground } from '../picture-input.ts';
import type { ChatScope } from './chat-scope.ts';
import { Editable } from './editable.tsx';

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
      { label: 'Choose a background…', onSelect: () => backgroundInput?.click(), hint: 'A picture behind this chat’s story' },
      ...(background.choice !== 'host' && background.host ? [{ label: 'Use the bot’s background', onSelect: () => setBackground('host') }] : []),
      ...(background.shown ? [{ label: 'No background', onSelect: () => setBackground('none') }] : []),
    ];
  };
  const chatActions = (): MenuItem[] => [
    { label: 'Previously on…', onSelect: props.onRecap, hint: 'A recap of what you saw lately' },
    ...backgroundActions(),
    {
      label: 'Delete chat',
      onSelect: props.onDelete,
      disabled: chat.sending() || Boolean(chat.pages.streaming()) || Boolean(header()?.deleted),
      hint: 'Kept 30 days in Recently deleted',
      danger: true,
    },
  ];
  const analysis = createLiveQuery(client, { query: 'analysisStatus', chatId }, () => client.engine.analysisStatus(chatId()));
  return (
    <>
      <header class="chat-header">
        <div class="chat-heading">
          <Show when={header()} fallback={<h1 id="chat-title">Chat</h1>}>
            {(h) => (
              <div class="chat-title-line">
                <Editable label="chat title" value={h().title} save={(title: string) => client.engine.editState(chatId(), { type: 'chat' }, 'title', title)}>
                  <h1 id="chat-title">{h().title}</h1>
                </Editable>
              </div>
            )}
          </Show>
          <p class="muted chat-meta">
            <Show when={header()}>{(h) => <span data-testid="fiction-time">{describeFictionTime(h().fictionTime)}</span>}</Show>
            <Show when={header()?.place}>{(place) => <span> · {place().name}</span>}</Show>
            <Show when={header()?.weather}>{(weather) => <span> · {weather()}</span>}</Show>
            <Show when={(analysis()?.pending ?? 0) > 0}>
              <span class="updating" role="status" data-testid="updating-memories">
                {' '}
                · updating memories…
              </span>
            </Show>
          </p>
        </div>
        <div class="row header-actions">
          <button type="button" class="small quiet drawer-toggle" aria-expanded={props.drawerOpen} aria-controls="story-drawer" onClick={props.onToggleDrawer}>
            {props.drawerOpen ? 'Hide story state' : 'Story state'}
          </button>
          <MenuButton label="Chat actions" class="icon-button" items={chatActions}>
            <span aria-hidden="true">⋯</span>
          </MenuButton>
          <input
            ref={(el) => (backgroundInput = el)}
            type="file"
            accept="image/*"
            class="visually-hidden"
            tabIndex={-1}
            aria-label="Background picture"
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
              {what() === 'chat' ? 'This chat is in Recently deleted.' : 'This chat’s bot is in Recently deleted, and the chat with it.'}{' '}
              <button type="button" class="small" onClick={() => void chat.run(() => (what() === 'chat' ? client.engine.restoreChat(chatId()) : client.engine.restoreBot(header()!.botId)))}>
                {what() === 'chat' ? 'Restore chat' : 'Restore bot'}
              </button>
            </span>
          </p>
        )}
      </Show>
    </>
  );
}
