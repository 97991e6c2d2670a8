import type { SyncedEvent } from '../log/merge.ts';

/**
 * One event as one CouchDB document: `_id` the event's id, fields for what it carries, and a
 * revision made from its content, so every device that pushes the same event names the same
 * revision and a second push is recognised as nothing new (`_revs_diff`).
 */
export interface EventDoc {
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

export function eventToDoc(event: SyncedEvent): EventDoc {
  return {
    _id: event.id,
    _rev: `1-${contentHash(contentOf(event))}`,
    kind: event.kind,
    chat: event.chat_id,
    payload: event.payload,
    cause: event.cause_id,
    command: event.command_id,
    device: event.device_id,
    ts: event.ts,
  };
}

/** A document from the server as an event, or why it is not one (the merge checks the rest). */
export function docToEvent(doc: unknown): SyncedEvent | string {
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
  if (d._rev !== eventToDoc(event)._rev) return 'its content does not match its revision';
  return event;
}
