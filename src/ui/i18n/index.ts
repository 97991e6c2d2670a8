import { flatten, resolveTemplate, translator } from '@solid-primitives/i18n';
import { createEffect, createMemo, createRoot, createSignal } from 'solid-js';
import type { Catalogue } from './catalogue.ts';
import type { en } from './en.ts';

/**
 * The interface in the player's language (issue 34, part 3): taken from the browser, or chosen in
 * Settings on this device (like the look, a device's own choice: in localStorage, every tab
 * follows a change at once). Stories are played in their own language, chosen per chat.
 */
/**
 * Each language's catalogue, fetched when it is the interface's language (before the first screen
 * is drawn: `loadUiLanguage`), so the first visit carries none of their text: with English in
 * its bundle it was already past its 80 KB budget, and every screen translated adds to each.
 */
const LOADERS = {
  en: async () => (await import('./en.ts')).en as Catalogue,
  ja: async () => (await import('./ja.ts')).ja,
  'zh-Hans': async () => (await import('./zh-Hans.ts')).zhHans,
  ko: async () => (await import('./ko.ts')).ko,
  es: async () => (await import('./es.ts')).es,
  ru: async () => (await import('./ru.ts')).ru,
} as const satisfies Record<string, () => Promise<Catalogue>>;
export type UiLanguage = keyof typeof LOADERS;
export const UI_LANGUAGES = Object.keys(LOADERS) as UiLanguage[];

const KEY = 'roleplay-engine/ui-language';

/** The first of the browser's languages the app speaks; English when none. */
export function browserLanguage(preferred: readonly string[] = typeof navigator === 'undefined' ? [] : navigator.languages): UiLanguage {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split('-')[0];
    if (base === 'zh') return 'zh-Hans';
    const found = UI_LANGUAGES.find((language) => language === base);
    if (found) return found;
  }
  return 'en';
}

const readChoice = (): UiLanguage | 'auto' => {
  const stored = typeof localStorage === 'undefined' ? null : localStorage.getItem(KEY);
  return stored && (UI_LANGUAGES as string[]).includes(stored) ? (stored as UiLanguage) : 'auto';
};

const i18n = createRoot(() => {
  const [choice, setChoiceSignal] = createSignal<UiLanguage | 'auto'>(readChoice());
  const loaded = new Map<UiLanguage, Catalogue>();
  // The catalogue shown: the interface language's once it is here, the one before it meanwhile.
  const [shown, setShown] = createSignal<Catalogue>();
  const language = createMemo<UiLanguage>(() => {
    const chosen = choice();
    return chosen === 'auto' ? browserLanguage() : chosen;
  });
  const load = async (wanted: UiLanguage): Promise<void> => {
    const catalogue = loaded.get(wanted) ?? (await LOADERS[wanted]());
    loaded.set(wanted, catalogue);
    if (language() === wanted || !shown()) setShown(() => catalogue);
  };
  createEffect(() => void load(language()));
  const dictionary = createMemo(() => flatten((shown() ?? {}) as typeof en));
  if (typeof document !== 'undefined') createEffect(() => (document.documentElement.lang = language()));
  if (typeof window !== 'undefined') window.addEventListener('storage', (event) => event.key === KEY && setChoiceSignal(readChoice()));
  return { choice, setChoiceSignal, language, load, t: translator(dictionary, resolveTemplate) };
});

/** Fetches the interface language's catalogue (before the first screen, so it is not drawn in English first). */
export const loadUiLanguage = (): Promise<void> => i18n.load(i18n.language()).catch(() => i18n.load('en'));

/** The words of the interface in its language: `t('nav.chats')`, `t('chats.count', 3)`. */
export const t = i18n.t;
/** The interface's language now (a BCP 47 tag), for `Intl` formatting. */
export const uiLanguage = i18n.language;
/** What the player chose in Settings ('auto': the browser's). */
export const uiLanguageChoice = i18n.choice;

export function chooseUiLanguage(choice: UiLanguage | 'auto'): void {
  if (choice === 'auto') localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, choice);
  i18n.setChoiceSignal(choice);
}
