import { addFictionMinutes } from '../fiction-time.ts';

/** When a question asks about: the story time it names, give or take `spread` minutes. */
export interface AskedTime {
  at: string;
  spread: number;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const pad = (n: number) => String(n).padStart(2, '0');
const DAY = 24 * 60;
const NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };

/**
 * The story time a question names, if it names one: a date as the app writes it ("1 May 1890,
 * 10:20", "May 1, 1890"), or one relative to the chat's clock ("yesterday", "last week", "this
 * morning", "three days ago", "an hour ago"). Null when it names none. Pure words to a window: a
 * question that names a time is answered from what was remembered around then.
 */
export function askedTime(query: string, now: string): AskedTime | null {
  const q = query.toLowerCase();
  const month = `(${MONTHS.join('|')})`;
  const clock = '(?:,?\\s*(?:at\\s*)?(\\d{1,2}):(\\d{2}))?';
  const dayFirst = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${month}\\s+(\\d{3,})${clock}`).exec(q);
  const monthFirst = new RegExp(`\\b${month}\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{3,})${clock}`).exec(q);
  const date = dayFirst
    ? { day: Number(dayFirst[1]), month: MONTHS.indexOf(dayFirst[2]!), year: Number(dayFirst[3]), hour: dayFirst[4], minute: dayFirst[5] }
    : monthFirst
      ? { day: Number(monthFirst[2]), month: MONTHS.indexOf(monthFirst[1]!), year: Number(monthFirst[3]), hour: monthFirst[4], minute: monthFirst[5] }
      : null;
  if (date && date.day >= 1 && date.day <= 31) {
    const year = String(date.year).padStart(4, '0');
    if (date.hour !== undefined) return { at: `${year}-${pad(date.month + 1)}-${pad(date.day)}T${pad(Number(date.hour))}:${date.minute}:00`, spread: 90 };
    return { at: `${year}-${pad(date.month + 1)}-${pad(date.day)}T12:00:00`, spread: 12 * 60 };
  }
  const ago = /\b(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+(minute|hour|day|week|month|year)s?\s+ago\b/.exec(q);
  if (ago) {
    const n = /\d/.test(ago[1]!) ? Number(ago[1]) : NUMBERS[ago[1]!]!;
    const unit = { minute: 1, hour: 60, day: DAY, week: 7 * DAY, month: 30 * DAY, year: 365 * DAY }[ago[2] as 'minute']!;
    return { at: addFictionMinutes(now, -n * unit), spread: Math.max(30, (n * unit) / 3) };
  }
  if (/\byesterday\b/.test(q)) return { at: addFictionMinutes(now, -DAY), spread: 12 * 60 };
  if (/\blast (week|time we met)\b/.test(q)) return { at: addFictionMinutes(now, -7 * DAY), spread: 4 * DAY };
  if (/\blast month\b/.test(q)) return { at: addFictionMinutes(now, -30 * DAY), spread: 15 * DAY };
  if (/\b(this morning|earlier today|today)\b/.test(q)) return { at: addFictionMinutes(now, -6 * 60), spread: 8 * 60 };
  if (/\blast night\b/.test(q)) return { at: addFictionMinutes(now, -16 * 60), spread: 6 * 60 };
  return null;
}
