/** Prints benchmark rows as an aligned plain-text table. */
export function printTable(title: string, rows: readonly (readonly [string, string])[]): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  console.log(`\n${title}`);
  console.log(`${'-'.repeat(width)}  ${'-'.repeat(16)}`);
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** The value below which `share` of the values fall (nearest rank). */
export function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))] ?? NaN;
}
