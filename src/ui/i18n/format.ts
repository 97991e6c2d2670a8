import { describeFictionTime } from '../../engine/for-ui.ts';
import { uiLanguage } from './index.ts';

/**
 * A story time ("2026-01-01T20:00:00", the chat's own clock, no zone) as the interface's language
 * writes a date and a time ("1 January 2026, 20:00" in English, as the story's prompts say it;
 * "2026年1月1日 20:00" in Japanese). Read as UTC and shown as UTC, so no time zone moves it.
 */
export function formatStoryTime(iso: string): string {
  if (uiLanguage() === 'en') return describeFictionTime(iso);
  const match = /^(-?\d{1,6})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(iso);
  if (!match) return iso;
  const [, y, mo, d, h, mi] = match.map(Number) as number[];
  const date = new Date(Date.UTC(2000, mo! - 1, d!, h!, mi!));
  date.setUTCFullYear(y!);
  return new Intl.DateTimeFormat(uiLanguage(), { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(date);
}
