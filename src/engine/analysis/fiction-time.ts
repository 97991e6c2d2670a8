/**
 * In-fiction time arithmetic on the ISO strings the log stores. Fiction has no time zone: any
 * offset is kept as written and the clock face moves, so "20:00" plus 90 minutes reads "21:30"
 * whatever the reader's zone, and years past 9999 still work.
 */
const ISO = /^(\d{4,})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$/;

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

export function addFictionMinutes(iso: string, minutes: number): string {
  const m = ISO.exec(iso);
  if (!m) throw new Error(`Not an in-fiction time: ${iso}`);
  const [, y, mo, d, h, mi, s, , zone] = m;
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi) + Math.round(minutes), Number(s ?? 0), 0);
  return (
    `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}` +
    `T${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}${zone ?? ''}`
  );
}

/** Minutes from `from` to `to` (negative when `to` is earlier); NaN when either is not a time. */
export function fictionMinutesBetween(from: string, to: string): number {
  const ms = (iso: string) => {
    const m = ISO.exec(iso);
    if (!m) return NaN;
    const date = new Date(0);
    date.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
    date.setUTCHours(Number(m[4]), Number(m[5]), Number(m[6] ?? 0), 0);
    return date.getTime();
  };
  return (ms(to) - ms(from)) / 60_000;
}
