import { createSignal } from 'solid-js';

/**
 * How the app looks on this device: its theme, text size, the story's reading width and the
 * speaker's portrait beside it. A device's own choice (a phone and a laptop differ), so it lives in
 * localStorage, not in the synced story; every tab of this browser follows a change at once.
 */
export interface Look {
  theme: 'system' | 'dark' | 'light' | 'paper';
  textSize: 'small' | 'medium' | 'large' | 'larger';
  chatWidth: 'narrow' | 'comfortable' | 'wide' | 'full';
  /** On wide screens, a large portrait of who is speaking beside the story. */
  portrait: boolean;
  /** A chat's background picture behind the story (a card's own, or one picked). */
  backgrounds: boolean;
  /** How strongly the theme's veil dims a background, for the story's contrast. */
  backgroundDim: 'soft' | 'medium' | 'strong';
  /**
   * Pictures from other sites in stories and card notes, fetched through the relay (no cookies, no
   * referrer); off by default, as loading one tells its server the story or card was opened.
   */
  remoteImages: boolean;
  /** "Previously on…" shows when a chat is opened after this many hours away ('never': only when asked). */
  recapAfter: 'never' | '1' | '4' | '12' | '24';
}

/** The values each choice may take (their names are the interface's words: `look.*` in i18n). */
export const LOOK_CHOICES = {
  theme: ['system', 'dark', 'light', 'paper'],
  textSize: ['small', 'medium', 'large', 'larger'],
  chatWidth: ['narrow', 'comfortable', 'wide', 'full'],
  recapAfter: ['never', '1', '4', '12', '24'],
  backgroundDim: ['soft', 'medium', 'strong'],
} as const satisfies Record<string, readonly string[]>;

const KEY = 'roleplay-engine/look';
const DEFAULT: Look = { theme: 'system', textSize: 'medium', chatWidth: 'comfortable', portrait: true, backgrounds: true, backgroundDim: 'medium', remoteImages: false, recapAfter: '4' };

function read(): Look {
  let stored: Partial<Look> = {};
  try {
    stored = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<Look>;
  } catch {
    // A damaged value is forgotten: the defaults stand.
  }
  const pick = <K extends keyof typeof LOOK_CHOICES>(key: K): Look[K] =>
    ((LOOK_CHOICES[key] as readonly string[]).includes(stored[key] as string) ? stored[key] : DEFAULT[key]) as Look[K];
  const flag = (key: 'portrait' | 'backgrounds' | 'remoteImages') => (typeof stored[key] === 'boolean' ? stored[key] : DEFAULT[key]);
  return { theme: pick('theme'), textSize: pick('textSize'), chatWidth: pick('chatWidth'), backgroundDim: pick('backgroundDim'), recapAfter: pick('recapAfter'), portrait: flag('portrait'), backgrounds: flag('backgrounds'), remoteImages: flag('remoteImages') };
}

const [look, setLookSignal] = createSignal<Look>(read());
export { look };

const prefersLight = () => globalThis.matchMedia?.('(prefers-color-scheme: light)').matches ?? false;

/** Puts the look on the page: attributes the stylesheet keys off ("system" resolved to light or dark). */
function apply(value: Look): void {
  const root = document.documentElement;
  root.dataset.theme = value.theme === 'system' ? (prefersLight() ? 'light' : 'dark') : value.theme;
  root.dataset.themeChoice = value.theme;
  root.dataset.textSize = value.textSize;
  root.dataset.chatWidth = value.chatWidth;
  root.dataset.portrait = value.portrait ? 'shown' : 'hidden';
  root.dataset.backgroundDim = value.backgroundDim;
}

export function setLook(change: Partial<Look>): void {
  const next = { ...look(), ...change };
  localStorage.setItem(KEY, JSON.stringify(next));
  setLookSignal(next);
  apply(next);
}

/** Before the first render, so the page never flashes in another theme; then follows the system and other tabs. */
export function startLook(): void {
  apply(look());
  globalThis.matchMedia?.('(prefers-color-scheme: light)').addEventListener('change', () => apply(look()));
  globalThis.addEventListener('storage', (event: StorageEvent) => {
    if (event.key !== KEY) return;
    const next = read();
    setLookSignal(next);
    apply(next);
  });
}
