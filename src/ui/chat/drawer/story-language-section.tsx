import { For } from 'solid-js';
import { t } from '../../i18n/index.ts';
import type { AppClient } from '../../engine-client.ts';
import { createLiveQuery } from '../../live-query.ts';
import { languageLabel, storyLanguageChoices } from '../../story-languages.ts';

/**
 * The language the story is played in (issue 34): the narrator, the analysis and the scene
 * summaries write in it. "Follow the story" says what it follows now (the bot's default, or what
 * the player writes in).
 */
export function StoryLanguageSection(props: { client: AppClient; chatId: string; busy: boolean; act: (action: () => Promise<unknown>) => Promise<void> }) {
  const language = createLiveQuery(props.client, { query: 'storyLanguage', chatId: () => props.chatId }, () => props.client.engine.storyLanguage(props.chatId));
  const chosen = () => (language()?.source === 'chat' ? language()!.tag : '');
  const following = () => {
    const now = language();
    if (!now || now.source === 'chat') return t('drawer.followStory');
    return now.source === 'bot' ? t('drawer.followBot', languageLabel(now.tag)) : t('drawer.followNow', languageLabel(now.tag));
  };
  return (
    <section aria-labelledby="drawer-language">
      <h2 id="drawer-language">{t('drawer.language')}</h2>
      <p class="small-text muted">{t('drawer.languageHint')}</p>
      <select
        aria-label={t('drawer.language')}
        disabled={props.busy}
        onChange={(event) => {
          const tag = event.currentTarget.value;
          void props.act(() => props.client.engine.setChatLanguage(props.chatId, tag || null));
        }}
      >
        <option value="" selected={chosen() === ''}>
          {following()}
        </option>
        <For each={storyLanguageChoices()}>
          {(option) => (
            <option value={option.tag} selected={chosen() === option.tag}>
              {option.label}
            </option>
          )}
        </For>
      </select>
    </section>
  );
}
