import { uiLanguage } from './i18n/index.ts';

/**
 * The languages a story can be chosen to be played in (issue 34): each named in itself and, when
 * that differs, in the interface's language ("日本語 — Japanese" in English, "English — 英語" in
 * Japanese), so a player finds their own at a glance.
 */
const TAGS = ['en', 'ja', 'zh', 'ko', 'es', 'ru', 'de', 'fr', 'it', 'pt', 'pl', 'uk', 'tr', 'nl', 'sv', 'id', 'vi', 'th', 'ar', 'he', 'hi'];

/** Names by locale and tag, read once: making a DisplayNames per name was 14 ms of opening a chat (its drawer lists them all). */
const names = new Map<string, string>();

/** A language's name in a locale ("日本語" for ja in ja), the tag itself where the platform has none. */
export function nameIn(locale: string, tag: string): string {
  const key = `${locale} ${tag}`;
  let name = names.get(key);
  if (name === undefined) {
    try {
      name = new Intl.DisplayNames([locale], { type: 'language' }).of(tag) ?? tag;
    } catch {
      name = tag;
    }
    names.set(key, name);
  }
  return name;
}

/** The choices, named for the interface's language now (call it where it is shown, so a change of language renames them). */
export function storyLanguageChoices(): { tag: string; label: string }[] {
  return TAGS.map((tag) => {
    const own = nameIn(tag, tag);
    const here = nameIn(uiLanguage(), tag);
    return { tag, label: own === here ? own : `${own} — ${here}` };
  });
}

/** A language's name in the interface's language ("Japanese" in English, "日本語" in Japanese). */
export const languageLabel = (tag: string): string => nameIn(uiLanguage(), tag);
