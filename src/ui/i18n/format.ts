import { describeFictionTime, fictionMinutesBetween, storyTimeAgo, storyTimeSpan } from '../../engine/for-first-screen.ts';
import { uiLanguage } from './index.ts';

/**
 * Story times in the interface's language. English keeps the engine's own words ("1 January 2026,
 * 20:00", "yesterday evening", "three hours"), the ones its prompts use; other languages get
 * `Intl`'s ("2026年1月1日 20:00", "2 時間前", "3 時間"). A story time has no zone: read as UTC and
 * shown as UTC, so no time zone moves it.
 */
const asDate = (iso: string): Date | null => {
  const match = /^(-?\d{1,6})-(\d{2})-(\d{2})T(\d{2}):(\d{2})/.exec(iso);
  if (!match) return null;
  const [, y, mo, d, h, mi] = match.map(Number) as number[];
  const date = new Date(Date.UTC(2000, mo! - 1, d!, h!, mi!));
  date.setUTCFullYear(y!);
  return date;
};

/** A story time as a date and a time. */
export function formatStoryTime(iso: string, language: string = uiLanguage()): string {
  if (language === 'en') return describeFictionTime(iso);
  const date = asDate(iso);
  return date ? new Intl.DateTimeFormat(language, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(date) : iso;
}

/** The largest whole unit a span of minutes fills, as `Intl` counts it. */
const unitOf = (minutes: number): [number, 'minute' | 'hour' | 'day' | 'week' | 'month' | 'year'] => {
  const abs = Math.abs(minutes);
  if (abs < 60) return [Math.round(minutes), 'minute'];
  if (abs < 24 * 60) return [Math.round(minutes / 60), 'hour'];
  if (abs < 14 * 24 * 60) return [Math.round(minutes / (24 * 60)), 'day'];
  if (abs < 60 * 24 * 60) return [Math.round(minutes / (7 * 24 * 60)), 'week'];
  if (abs < 365 * 24 * 60) return [Math.round(minutes / (30.44 * 24 * 60)), 'month'];
  return [Math.floor(minutes / (365.25 * 24 * 60)), 'year'];
};

/** How long before `now` a story time was: "yesterday evening", "2 時間前". */
export function formatStoryTimeAgo(then: string, now: string, language: string = uiLanguage()): string {
  if (language === 'en') return storyTimeAgo(then, now);
  const minutes = fictionMinutesBetween(then, now);
  if (!Number.isFinite(minutes)) return '';
  const words = new Intl.RelativeTimeFormat(language, { numeric: 'auto' });
  // Under two minutes is "now" ("今", "지금"), not "this minute".
  if (minutes < 2) return words.format(0, 'second');
  const [n, unit] = unitOf(minutes);
  return words.format(-n, unit);
}

/** How much story time lies between two times: "three hours", "3 時間". Empty when not times. */
export function formatStorySpan(from: string, to: string, language: string = uiLanguage()): string {
  if (language === 'en') return storyTimeSpan(from, to);
  const minutes = fictionMinutesBetween(from, to);
  if (!Number.isFinite(minutes) || minutes < 0) return '';
  const [n, unit] = unitOf(minutes);
  return new Intl.NumberFormat(language, { style: 'unit', unit, unitDisplay: 'long' }).format(n);
}
