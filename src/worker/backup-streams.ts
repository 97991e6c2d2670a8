import type { Engine } from '../engine/engine.ts';
import type { BackupEvent } from '../engine/log/backup-event.ts';
import { createStoryCount, type BackupSummary } from '../engine/log/backup-lines.ts';

/**
 * The backup file at the edge: the engine's lines, gzip-compressed by the platform's
 * CompressionStream, and read back line by line. Only Web Streams, so the worker and Node tests
 * share it. A file is never one string: lines are pulled a page at a time and read a chunk at a
 * time.
 */

const GZIP_MAGIC = [0x1f, 0x8b];
/** Longer than any event the app writes (a reply with its prompt report is a few KB). */
const MAX_LINE = 8 * 1024 * 1024;
/** How much text one pull hands the compressor. */
const PULL_CHARS = 256 * 1024;

export function gzipLines(lines: Iterator<string> | AsyncIterator<string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const text = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let chunk = '';
      while (chunk.length < PULL_CHARS) {
        const pending = lines.next();
        const next = pending instanceof Promise ? await pending : pending;
        if (next.done) {
          if (chunk) controller.enqueue(encoder.encode(chunk));
          controller.close();
          return;
        }
        chunk += `${next.value}\n`;
      }
      controller.enqueue(encoder.encode(chunk));
    },
  });
  return text.pipeThrough(new CompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>);
}

export type BackupKind = 'lines' | 'json' | 'unknown';

/** What a file holds, from its first bytes: a gzip stream of lines (format 3) or JSON (formats 1 and 2). */
export async function sniffBackup(file: Blob): Promise<BackupKind> {
  const head = new Uint8Array(await file.slice(0, 16).arrayBuffer());
  if (head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1]) return 'lines';
  const first = new TextDecoder().decode(head).trimStart()[0];
  return first === '{' ? 'json' : 'unknown';
}

/** The lines of a gzip-compressed backup, one at a time; a damaged gzip stream throws a plain-words error. */
export async function* gunzipLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const text = stream
    .pipeThrough(new DecompressionStream('gzip') as unknown as ReadableWritablePair<Uint8Array, Uint8Array>)
    .pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>);
  const reader = text.getReader();
  let rest = '';
  try {
    for (;;) {
      let read: ReadableStreamReadResult<string>;
      try {
        read = await reader.read();
      } catch (error) {
        throw new BackupDamagedError(`The backup file is damaged: it cannot be decompressed (${error instanceof Error ? error.message : String(error)}).`);
      }
      if (read.done) break;
      // Only the new text is searched for line ends, so a long line costs its length, once.
      const end = read.value.lastIndexOf('\n');
      if (end < 0) {
        rest += read.value;
        if (rest.length > MAX_LINE) throw new BackupDamagedError(`The backup file is damaged: it has a line longer than ${MAX_LINE.toLocaleString('en-US')} characters.`);
        continue;
      }
      const complete = rest + read.value.slice(0, end);
      rest = read.value.slice(end + 1);
      yield* complete.split('\n');
    }
    if (rest) yield rest;
  } finally {
    reader.releaseLock();
  }
}

export class BackupDamagedError extends Error {
  override name = 'BackupError';
}

/** A stream read whole into a Blob; an error in the stream rejects with that error (a Response would replace it). */
export async function blobOf(stream: ReadableStream<Uint8Array>): Promise<Blob> {
  const parts: Uint8Array<ArrayBuffer>[] = [];
  const reader = stream.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) parts.push(read.value as Uint8Array<ArrayBuffer>);
  return new Blob(parts);
}


const STAGE_BATCH = 1_000;

/** A JSON backup (formats 1 and 2, earlier exports), parsed and checked whole, with its summary. */
async function checkedJson(engine: Engine, file: Blob): Promise<{ events: BackupEvent[]; summary: BackupSummary }> {
  const { events, exportedAt, version } = engine.checkJsonBackup(parseJson(await file.text()));
  const story = createStoryCount();
  for (const e of events) story.add(e.kind, e.chat_id, JSON.parse(e.payload));
  return { events, summary: { version, exportedAt, database: null, events: events.length, ...story.counts() } };
}

/** What a backup file holds, checked through to its last line; nothing is written. */
export async function checkBackupFile(engine: Engine, file: Blob): Promise<BackupSummary> {
  const kind = await sniffBackup(file);
  if (kind === 'unknown') throw new BackupDamagedError('This file is not a Roleplay Engine backup.');
  if (kind === 'json') return (await checkedJson(engine, file)).summary;
  const reader = engine.backupReader();
  for await (const line of gunzipLines(file.stream() as ReadableStream<Uint8Array>)) reader.line(line);
  return reader.end();
}

/**
 * Replaces the log with a backup file's: checked whole first (nothing is written if any line is
 * wrong), then staged in batches (a gzip file read again, and checked again: it could have changed
 * on disk between the two reads), then swapped in by one transaction.
 */
export async function restoreBackupFile(engine: Engine, file: Blob): Promise<BackupSummary> {
  const json = (await sniffBackup(file)) === 'json' ? await checkedJson(engine, file) : undefined;
  const summary = json?.summary ?? (await checkBackupFile(engine, file));
  engine.restore.begin();
  try {
    let batch: BackupEvent[] = [];
    const flush = () => {
      engine.restore.add(batch);
      batch = [];
    };
    if (json) {
      for (const event of json.events) {
        batch.push(event);
        if (batch.length >= STAGE_BATCH) flush();
      }
    } else {
      const reader = engine.backupReader((event) => batch.push(event));
      for await (const line of gunzipLines(file.stream() as ReadableStream<Uint8Array>)) {
        reader.line(line);
        if (batch.length >= STAGE_BATCH) flush();
      }
      reader.end();
    }
    flush();
    engine.restore.commit(summary.events);
    return summary;
  } catch (error) {
    engine.restore.abandon();
    throw error;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new BackupDamagedError('This backup file is damaged: it is not valid JSON.');
  }
}
