import { flatten } from '@solid-primitives/i18n';
import { describe, expect, it } from 'vitest';
import { browserLanguage } from '../../src/ui/i18n/index.ts';
import { CATALOGUES } from '../../src/ui/i18n/all.ts';
import { en } from '../../src/ui/i18n/en.ts';

// The interface in six languages (issue 34, part 3): every catalogue has every key English has.

const keysOf = (catalogue: object) => Object.keys(flatten(catalogue as Record<string, unknown>)).sort();

describe('the interface catalogues', () => {
  it.each(Object.entries(CATALOGUES).filter(([language]) => language !== 'en'))('%s has every key English has, and no other', (_language, catalogue) => {
    expect(keysOf(catalogue)).toEqual(keysOf(en));
    // Each text is a text, each text with a count or a name a function of it, as in English.
    const ours = flatten(catalogue as Record<string, unknown>);
    for (const [key, value] of Object.entries(flatten(en as Record<string, unknown>))) expect(typeof ours[key], key).toBe(typeof value);
  });

  it("counts by each language's plural rules", () => {
    expect([1, 2, 5].map((n) => CATALOGUES.en.chats.count(n))).toEqual(['1 chat', '2 chats', '5 chats']);
    expect([1, 3, 5, 21].map((n) => CATALOGUES.ru.chats.count(n))).toEqual(['1 чат', '3 чата', '5 чатов', '21 чат']);
    expect(CATALOGUES.ja.chats.count(1_200)).toBe('1,200件のチャット');
  });

  it("takes the browser's first language the app speaks, else English", () => {
    expect(browserLanguage(['ko-KR', 'en'])).toBe('ko');
    expect(browserLanguage(['zh-CN'])).toBe('zh-Hans');
    expect(browserLanguage(['fr-FR', 'es-MX'])).toBe('es');
    expect(browserLanguage(['fr-FR'])).toBe('en');
  });
});
