import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { BackupDamagedError } from './backup-streams.ts';

/**
 * A backup kept as what it differs by from a newer one ("shared"): the daily backups of a player
 * who plays every day hold the same log, a day's play apart, and fourteen whole copies would weigh
 * more than the database. A shared backup is gzip lines too:
 *
 *   {"shared":1,"base":<the newer backup's name when it was made>,"baseEvents":n,"baseSha256":…}
 *   <this backup's header line, as written>
 *   one line per difference, in id order: a JSON string is the id of a line of the base to leave
 *   out (a turn played since); an event line is one to put in (a line purged since, or written
 *   differently), after the base's lines before it
 *   <this backup's trailer, as written>
 *
 * Both walks are merges of lines in id order (every backup's event lines are), a line at a time,
 * so no backup is ever held whole. Rebuilding checks the result against the trailer's count and
 * SHA-256: a shared backup reads back exactly as written, or not at all.
 */

interface SharedHeader {
  shared: 1;
  base: string;
  baseEvents: number;
  baseSha256: string;
}

interface Trailer {
  end: true;
  events: number;
  sha256: string;
}

const ID_PREFIX = '{"id":"';

/** The id of an event line: the writer puts it first, so it is read without parsing the line. */
function idOf(line: string): string {
  if (line.startsWith(ID_PREFIX)) {
    const end = line.indexOf('"', ID_PREFIX.length);
    if (end > 0) return line.slice(ID_PREFIX.length, end);
  }
  const parsed = parseLine(line);
  if (typeof parsed === 'object' && parsed !== null && typeof (parsed as { id?: unknown }).id === 'string') return (parsed as { id: string }).id;
  throw new BackupDamagedError('A shared backup is damaged: one of its lines is not an event.');
}

function parseLine(line: string): unknown {
  try {
    return JSON.parse(line) as unknown;
  } catch {
    throw new BackupDamagedError('A shared backup is damaged: one of its lines is not JSON.');
  }
}

const isTrailer = (line: string) => line.startsWith('{"end":');

/** A backup's lines split into its header, its event lines (pulled one at a time) and, once they are read, its trailer. */
function backupParts(lines: AsyncIterable<string>) {
  const it = lines[Symbol.asyncIterator]();
  let trailer: Trailer | undefined;
  let trailerLine = '';
  return {
    async header(): Promise<string> {
      const first = await it.next();
      if (first.done) throw new BackupDamagedError('A backup is empty.');
      return first.value;
    },
    /** The next event line, or undefined at the trailer. */
    async event(): Promise<string | undefined> {
      if (trailer) return undefined;
      const next = await it.next();
      if (next.done) throw new BackupDamagedError('A backup ends without its end-of-backup line: it was cut short.');
      if (!isTrailer(next.value)) return next.value;
      trailer = parseLine(next.value) as Trailer;
      trailerLine = next.value;
      return undefined;
    },
    trailer(): Trailer {
      if (!trailer) throw new Error('The trailer is read after the last event.');
      return trailer;
    },
    trailerLine: () => trailerLine,
  };
}

/**
 * The lines of a shared backup: what `older` differs by from `newer` (both whole backups' lines),
 * headed by `base`, the name `newer` is kept under. Null when the differences pass `limit`
 * characters (a restore between the two, say): such a backup is better kept whole.
 */
export async function sharedLines(older: AsyncIterable<string>, newer: AsyncIterable<string>, base: string, limit: number): Promise<string[] | null> {
  const o = backupParts(older);
  const n = backupParts(newer);
  const olderHeader = await o.header();
  await n.header();
  const differences: string[] = [];
  let size = 0;
  const differ = (...lines: string[]) => {
    differences.push(...lines);
    for (const line of lines) size += line.length + 1;
  };
  let ol = await o.event();
  let nl = await n.event();
  while (ol !== undefined || nl !== undefined) {
    if (size > limit) return null;
    const oid = ol === undefined ? undefined : idOf(ol);
    const nid = nl === undefined ? undefined : idOf(nl);
    if (oid !== undefined && oid === nid) {
      if (ol !== nl) differ(JSON.stringify(nid), ol!);
      ol = await o.event();
      nl = await n.event();
    } else if (oid !== undefined && (nid === undefined || oid < nid)) {
      differ(ol!);
      ol = await o.event();
    } else {
      differ(JSON.stringify(nid));
      nl = await n.event();
    }
  }
  if (size > limit) return null;
  const baseTrailer = n.trailer();
  const header: SharedHeader = { shared: 1, base, baseEvents: baseTrailer.events, baseSha256: baseTrailer.sha256 };
  return [JSON.stringify(header), olderHeader, ...differences, o.trailerLine()];
}

/** The first line of a shared backup, read as its header: which backup it needs. */
function readSharedHeader(line: string): SharedHeader {
  const value = parseLine(line) as Partial<SharedHeader> | null;
  if (value?.shared !== 1 || typeof value.base !== 'string' || typeof value.baseEvents !== 'number' || typeof value.baseSha256 !== 'string') {
    throw new BackupDamagedError('A shared backup is damaged: its first line does not say which backup it shares with.');
  }
  return value as SharedHeader;
}

/**
 * The whole backup a shared one stands for, rebuilt from the lines of its base: every line as it
 * was written, checked against its trailer before the trailer is handed on.
 */
export async function* rebuiltLines(shared: AsyncIterable<string>, base: AsyncIterable<string>): AsyncGenerator<string> {
  const s = shared[Symbol.asyncIterator]();
  const first = await s.next();
  if (first.done) throw new BackupDamagedError('A shared backup is empty.');
  const header = readSharedHeader(first.value);
  const ownHeader = await s.next();
  if (ownHeader.done) throw new BackupDamagedError('A shared backup was cut short.');
  const b = backupParts(base);
  await b.header();
  yield ownHeader.value;

  const hash = sha256.create();
  const encoder = new TextEncoder();
  let count = 0;
  const out = (line: string) => {
    hash.update(encoder.encode(`${line}\n`));
    count++;
    return line;
  };
  let ownTrailer: string | undefined;
  const nextDifference = async (): Promise<string | undefined> => {
    const next = await s.next();
    if (next.done) throw new BackupDamagedError('A shared backup was cut short: it has no end-of-backup line.');
    if (isTrailer(next.value)) {
      ownTrailer = next.value;
      return undefined;
    }
    return next.value;
  };
  let difference = await nextDifference();
  /** A difference's id, and whether it leaves a base line out (a JSON string) or puts one in. */
  const read = (line: string) => (line.startsWith('"') ? { leaveOut: true, id: parseLine(line) as string } : { leaveOut: false, id: idOf(line) });

  const mismatch = () => new BackupDamagedError('A shared backup does not match the backup it shares with.');
  for (let line = await b.event(); line !== undefined; line = await b.event()) {
    const id = idOf(line);
    // The lines put in before this one of the base.
    let d = difference === undefined ? undefined : read(difference);
    while (d && !d.leaveOut && d.id < id) {
      yield out(difference!);
      difference = await nextDifference();
      d = difference === undefined ? undefined : read(difference);
    }
    if (d?.leaveOut && d.id < id) throw mismatch();
    if (d && !d.leaveOut && d.id === id) throw mismatch();
    if (d?.leaveOut && d.id === id) {
      difference = await nextDifference();
      // A line written differently: left out, and put in again as it was.
      while (difference !== undefined && !difference.startsWith('"') && idOf(difference) === id) {
        yield out(difference);
        difference = await nextDifference();
      }
      continue;
    }
    yield out(line);
  }
  const baseTrailer = b.trailer();
  if (baseTrailer.events !== header.baseEvents || baseTrailer.sha256 !== header.baseSha256) {
    throw new BackupDamagedError(`A shared backup cannot be rebuilt: the newer backup it shares with is not the one it was made from (${header.base}).`);
  }
  while (difference !== undefined) {
    if (difference.startsWith('"')) throw mismatch();
    yield out(difference);
    difference = await nextDifference();
  }
  const trailer = parseLine(ownTrailer!) as Partial<Trailer> | null;
  if (trailer?.events !== count || trailer.sha256 !== bytesToHex(hash.digest())) {
    throw new BackupDamagedError('A shared backup cannot be rebuilt: what it rebuilds does not match its checksum.');
  }
  yield ownTrailer!;
}
