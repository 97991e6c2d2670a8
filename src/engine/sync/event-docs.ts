import type { SyncedEvent } from '../log/merge.ts';
import type { Sealer } from './encryption.ts';

/**
 * One event as one CouchDB document: `_id` the event's id, fields for what it carries, and a
 * revision made from its content, so every device that pushes the same event names the same
 * revision and a second push is recognised as nothing new (`_revs_diff`).
 */
export interface PlainEventDoc {
  _id: string;
  _rev: string;
  kind: string;
  chat: string | null;
  payload: string;
  cause: string | null;
  command: string | null;
  device: string;
  ts: number;
}

/** With a passphrase: only the id and the revision stay readable; the rest is sealed (AES-GCM). */
export interface SealedEventDoc {
  _id: string;
  _rev: string;
  sealed: { iv: string; data: string };
}

export type EventDoc = PlainEventDoc | SealedEventDoc;

/** A 128-bit content hash as 32 hex digits (FNV-1a in four lanes): not for secrecy, only to be the same everywhere. */
export function contentHash(text: string): string {
  const lanes = [0x811c9dc5, 0x01000193 ^ 0x9e3779b9, 0x85ebca6b, 0xc2b2ae35];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    for (let l = 0; l < 4; l++) lanes[l] = Math.imul(lanes[l]! ^ (c + l * 0x9e37), 0x01000193);
  }
  // Each lane mixed with the others once more, so a change anywhere reaches all 128 bits.
  const mixed = lanes.map((v, l) => Math.imul(v ^ (lanes[(l + 1) % 4]! >>> 15), 0x2c1b3c6d) ^ (text.length + l));
  return mixed.map((v) => (v >>> 0).toString(16).padStart(8, '0')).join('');
}

const contentOf = (e: SyncedEvent) => JSON.stringify([e.id, e.device_id, e.ts, e.kind, e.chat_id, e.payload, e.cause_id, e.command_id]);

export function eventToDoc(event: SyncedEvent, revisionSecret = ''): PlainEventDoc {
  return {
    _id: event.id,
    _rev: `1-${contentHash(revisionSecret + contentOf(event))}`,
    kind: event.kind,
    chat: event.chat_id,
    payload: event.payload,
    cause: event.cause_id,
    command: event.command_id,
    device: event.device_id,
    ts: event.ts,
  };
}

/** The document to push: sealed when the database is encrypted. Its revision comes from the plain content either way. */
export async function docFor(event: SyncedEvent, sealer: Sealer | null): Promise<EventDoc> {
  if (!sealer) return eventToDoc(event);
  const plain = eventToDoc(event, sealer.revisionSecret);
  const { _id, _rev, ...content } = plain;
  return { _id, _rev, sealed: await sealer.seal(JSON.stringify(content)) };
}

/**
 * A document from the server as an event, or why it is not one (the merge checks the rest). A
 * sealed one is opened first; without the passphrase, or with a wrong one, that throws.
 */
export async function eventOf(doc: unknown, sealer: Sealer | null): Promise<SyncedEvent | string> {
  if (typeof doc !== 'object' || doc === null) return 'not an object';
  const d = doc as Record<string, unknown>;
  if (typeof d.sealed !== 'object' || d.sealed === null) return docToEvent(doc);
  if (!sealer) return 'it is encrypted and this device has no passphrase';
  let content: unknown;
  try {
    content = JSON.parse(await sealer.open(d.sealed as { iv: string; data: string }));
  } catch (error) {
    if (error instanceof SyntaxError) return 'its sealed content is not JSON';
    throw error;
  }
  return docToEvent({ ...(content as object), _id: d._id, _rev: d._rev }, sealer.revisionSecret);
}

/** A plain document from the server as an event, or why it is not one. */
export function docToEvent(doc: unknown, revisionSecret = ''): SyncedEvent | string {
  if (typeof doc !== 'object' || doc === null) return 'not an object';
  const d = doc as Record<string, unknown>;
  const text = (v: unknown) => typeof v === 'string';
  const textOrNull = (v: unknown) => v === null || typeof v === 'string';
  if (!text(d._id) || !text(d.kind) || !text(d.payload) || !text(d.device) || typeof d.ts !== 'number' || !textOrNull(d.chat) || !textOrNull(d.cause) || !textOrNull(d.command)) {
    return 'missing or mistyped fields';
  }
  const event: SyncedEvent = {
    id: d._id as string,
    device_id: d.device as string,
    ts: d.ts as number,
    kind: d.kind as string,
    chat_id: d.chat as string | null,
    payload: d.payload as string,
    cause_id: d.cause as string | null,
    command_id: d.command as string | null,
  };
  // A revision that does not match the content means the document was changed on the way.
  if (d._rev !== eventToDoc(event, revisionSecret)._rev) return 'its content does not match its revision';
  return event;
}
