/**
 * The language a story is played in (issue 34, part 2), told from its text when the player has not
 * chosen one: by script where a script says it (Hangul is Korean, kana Japanese, Han alone
 * Chinese, Cyrillic Russian or Ukrainian...), else by the short words every sentence of a language
 * holds. Undefined when the text does not say (too short, or a tie).
 */

const SCRIPTS: readonly [RegExp, string][] = [
  [/\p{Script=Hangul}/u, 'ko'],
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, 'ja'],
  [/\p{Script=Han}/u, 'zh'],
  [/\p{Script=Thai}/u, 'th'],
  [/\p{Script=Arabic}/u, 'ar'],
  [/\p{Script=Hebrew}/u, 'he'],
  [/\p{Script=Greek}/u, 'el'],
  [/\p{Script=Devanagari}/u, 'hi'],
];

const CYRILLIC = /\p{Script=Cyrillic}/u;
const UKRAINIAN_LETTERS = /[іїєґ]/iu;

/** Each language's most frequent short words: a sentence of a few words holds several. */
const SHORT_WORDS: Record<string, ReadonlySet<string>> = Object.fromEntries(
  Object.entries({
    en: 'the and is are was were you your he she it his her of to in that with for on at this what not but i me my have has',
    es: 'el la los las de del que y en se un una por con no es su al lo como pero más me mi está son',
    de: 'der die das und ist nicht ich sie er es ein eine mit den dem zu auf für von sich auch wie aber mein du',
    fr: 'le la les et est un une des du que il elle je pas dans ce qui sur pour avec mon ne se vous nous',
    it: 'il lo la gli le di che è un una per non sono con del della mi ma come anche ho questo',
    pt: 'o os as de que e é um uma não com para do da dos das se na no mas eu meu ela ele',
    nl: 'de het een en van ik je niet dat is op te zijn met voor er maar hij zij wat',
  }).map(([language, words]) => [language, new Set(words.split(' '))]),
);

/** The language of a text by its script or its short words, as a BCP 47 tag, or undefined. */
export function detectLanguage(text: string): string | undefined {
  const sample = text.slice(0, 4_000);
  // Japanese writes Han too: kana decides, so it is looked for before Han.
  for (const [script, language] of SCRIPTS) if (script.test(sample)) return language;
  if (CYRILLIC.test(sample)) return UKRAINIAN_LETTERS.test(sample) ? 'uk' : 'ru';
  const words = sample.toLowerCase().match(/\p{L}+/gu) ?? [];
  const hits = Object.entries(SHORT_WORDS).map(([language, set]) => [language, words.filter((w) => set.has(w)).length] as const);
  hits.sort((a, b) => b[1] - a[1]);
  const [best, second] = hits;
  if (!best || best[1] < 2 || best[1] === second?.[1]) return undefined;
  return best[0];
}

/** A language's English name for the prompts ("Japanese"), the tag itself where the platform has none. */
export function languageName(tag: string): string {
  try {
    return new Intl.DisplayNames(['en'], { type: 'language' }).of(tag) ?? tag;
  } catch {
    return tag;
  }
}

/** The language a chat's story is played in, and where that comes from. */
export interface StoryLanguage {
  /** A BCP 47 tag ("ja"). */
  tag: string;
  /** Its English name, for the prompts ("Japanese"). */
  name: string;
  /** 'chat': chosen for this chat; 'bot': the bot's default; 'story': told from the kickoff and the player's lines. */
  source: 'chat' | 'bot' | 'story';
}

/**
 * What a prompt says about the story's language: nothing for a story told to be in English (the
 * prompts' own language, what models write unless told otherwise), else that every text it
 * writes is in that language. `what` names what the prompt writes.
 */
export function languageInstruction(language: StoryLanguage | undefined, what: string): string {
  if (!language || (language.source === 'story' && language.tag === 'en')) return '';
  return `The story is played in ${language.name}: write ${what} in ${language.name}.`;
}

