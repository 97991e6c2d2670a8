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
