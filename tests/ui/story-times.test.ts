import { describe, expect, it } from 'vitest';
import { formatStorySpan, formatStoryTime, formatStoryTimeAgo } from '../../src/ui/i18n/format.ts';

// Story times in the interface's language (issue 34, part 3): Intl's words, English's own kept.
const at = (time: string) => `2026-01-01T${time}:00`;

describe('story times', () => {
  it('keep the story words in English', () => {
    expect(formatStoryTime(at('20:00'), 'en')).toBe('1 January 2026, 20:00');
    expect(formatStoryTimeAgo(at('18:00'), at('20:00'), 'en')).toBe('two hours ago');
    expect(formatStorySpan(at('17:00'), at('20:00'), 'en')).toBe('three hours');
  });

  it.each([
    // The date's punctuation is ICU's, which differs a little between Node and the browsers.
    ['ja', /^2026年1月1日 20:00$/, '2 時間前', '今', '3 時間', '昨日'],
    ['ko', /^2026년 1월 1일 (오후|PM) 8:00$/, '2시간 전', '지금', '3시간', '어제'],
    ['ru', /^1 января 2026 г\.(,| в) 20:00$/, '2 часа назад', 'сейчас', '3 часа', 'вчера'],
  ])('are written the %s way: a date, how long ago, now, a span, yesterday', (language, date, ago, now, span, yesterday) => {
    expect(formatStoryTime(at('20:00'), language)).toMatch(date);
    expect(formatStoryTimeAgo(at('18:00'), at('20:00'), language)).toBe(ago);
    expect(formatStoryTimeAgo(at('19:59'), at('20:00'), language)).toBe(now);
    expect(formatStorySpan(at('17:00'), at('20:00'), language)).toBe(span);
    expect(formatStoryTimeAgo('2025-12-31T20:00:00', at('20:00'), language)).toBe(yesterday);
  });
});
