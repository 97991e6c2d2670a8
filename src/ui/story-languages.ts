/**
 * The languages a story can be chosen to be played in (issue 34): each named in itself and, when
 * that differs, in English ("日本語 — Japanese"), so a player finds their own at a glance.
 */
const TAGS = ['en', 'ja', 'zh', 'ko', 'es', 'ru', 'de', 'fr', 'it', 'pt', 'pl', 'uk', 'tr', 'nl', 'sv', 'id', 'vi', 'th', 'ar', 'he', 'hi'];

function nameIn(locale: string, tag: string): string {
  try {
    return new Intl.DisplayNames([locale], { type: 'language' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

export const STORY_LANGUAGES: readonly { tag: string; label: string }[] = TAGS.map((tag) => {
  const own = nameIn(tag, tag);
  const english = nameIn('en', tag);
  return { tag, label: own === english ? own : `${own} — ${english}` };
});

/** A language's name for a label, in English ("Japanese"). */
export const languageLabel = (tag: string): string => nameIn('en', tag);
