/**
 * In-fiction time: the one parser of the ISO strings the log stores, its arithmetic and its words. Fiction has no time zone: any
 * offset is kept as written and the clock face moves, so "20:00" plus 90 minutes reads "21:30"
 * whatever the reader's zone, and years past 9999 still work.
 */
export const FICTION_TIME_PATTERN = /^(\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** The clock face as a UTC instant (fiction has no zone), or undefined when it is not a time. */
function faceOf(iso: string): { date: Date; zone: string } | undefined {
  const m = FICTION_TIME_PATTERN.exec(iso);
  if (!m) return undefined;
  const date = new Date(0);
  date.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  date.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6] ?? 0), 0);
  return { date, zone: m[8] ?? '' };
}

export function addFictionMinutes(iso: string, minutes: number): string {
  const face = faceOf(iso);
  if (!face) throw new Error(`Not an in-fiction time: ${iso}`);
  const date = new Date(face.date.getTime() + Math.round(minutes) * 60_000);
  return (
    `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}${face.zone}`
  );
}

/** Minutes from `from` to `to` (negative when `to` is earlier); NaN when either is not a time. */
export function fictionMinutesBetween(from: string, to: string): number {
  const [a, b] = [faceOf(from), faceOf(to)];
  return a && b ? (b.date.getTime() - a.date.getTime()) / 60_000 : NaN;
}

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** "1 May 1890, 20:00": how the narrator and the screens say an in-fiction time. */
export function describeFictionTime(iso: string): string {
  const face = faceOf(iso);
  if (!face) return iso;
  const d = face.date;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${pad(d.getUTCFullYear(), 4)}, ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}`;
}

const NUMBER_WORDS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve'];
const counted = (n: number, unit: string) => (n === 1 ? `${unit === 'hour' ? 'an' : 'a'} ${unit}` : `${NUMBER_WORDS[n] ?? n} ${unit}s`);
const SEASONS = ['winter', 'winter', 'spring', 'spring', 'spring', 'summer', 'summer', 'summer', 'autumn', 'autumn', 'autumn', 'winter'];
/** The part of the day an hour falls in, as a story says it. */
const partOfDay = (hour: number) => (hour < 5 ? 'night' : hour < 12 ? 'morning' : hour < 17 ? 'afternoon' : hour < 21 ? 'evening' : 'night');
const dayNumber = (d: Date) => Math.floor(d.getTime() / 86_400_000);

/**
 * How long before `now` (the chat's own clock) `then` was, as a story says it: "just now", "two hours
 * ago", "this morning", "yesterday evening", "three days ago", "last week", "last winter", "two years
 * ago". Only story time counts, never the computer's; a time after `now` (the clock was set back)
 * is "later on". Empty when either is not a time.
 */
export function storyTimeAgo(then: string, now: string): string {
  const [a, b] = [faceOf(then), faceOf(now)];
  if (!a || !b) return '';
  const minutes = Math.round((b.date.getTime() - a.date.getTime()) / 60_000);
  if (minutes < 0) return 'later on';
  if (minutes < 2) return 'just now';
  if (minutes < 60) return `${counted(minutes < 10 ? minutes : Math.round(minutes / 5) * 5, 'minute')} ago`;
  const days = dayNumber(b.date) - dayNumber(a.date);
  const part = partOfDay(a.date.getUTCHours());
  if (minutes < 180) return `${counted(Math.round(minutes / 60), 'hour')} ago`;
  if (days === 0) return part === 'night' && a.date.getUTCHours() < 5 ? 'last night' : `this ${part === 'night' ? 'night' : part}`;
  if (days === 1) return part === 'night' ? 'last night' : `yesterday ${part}`;
  if (days < 7) return `${counted(days, 'day')} ago`;
  if (days < 14) return 'last week';
  if (days < 31) return `${counted(Math.round(days / 7), 'week')} ago`;
  if (days < 60) return 'last month';
  if (days < 365) {
    const [season, current] = [SEASONS[a.date.getUTCMonth()]!, SEASONS[b.date.getUTCMonth()]!];
    return season === current && days < 120 ? `earlier this ${season}` : `last ${season}`;
  }
  const years = Math.floor(days / 365.25);
  return years <= 1 ? 'a year ago' : `${counted(years, 'year')} ago`;
}

/** How much story time lies between two times, in words: "forty minutes", "three hours", "two days". Empty when not times. */
export function storyTimeSpan(from: string, to: string): string {
  const minutes = Math.round(fictionMinutesBetween(from, to));
  if (!Number.isFinite(minutes) || minutes < 0) return '';
  if (minutes < 60) return minutes < 2 ? 'a moment' : counted(minutes, 'minute');
  if (minutes < 48 * 60) return counted(Math.round(minutes / 60), 'hour');
  if (minutes < 60 * 24 * 60) return counted(Math.round(minutes / (60 * 24)), 'day');
  if (minutes < 60 * 24 * 365) return counted(Math.max(2, Math.round(minutes / (60 * 24 * 30.44))), 'month');
  return counted(Math.max(1, Math.floor(minutes / (60 * 24 * 365.25))), 'year');
}

/** The next morning after `iso` (07:00 of the following day, or of this one when it is still before 05:00), as minutes from it. */
export function minutesToNextMorning(iso: string): number {
  const face = faceOf(iso);
  if (!face) throw new Error(`Not an in-fiction time: ${iso}`);
  const morning = new Date(face.date.getTime());
  if (face.date.getUTCHours() >= 5) morning.setUTCDate(morning.getUTCDate() + 1);
  morning.setUTCHours(7, 0, 0, 0);
  return Math.round((morning.getTime() - face.date.getTime()) / 60_000);
}
