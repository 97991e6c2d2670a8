import type { LoggedEvent } from '../events/define.ts';

export interface EventRow {
  seq: number;
  id: string;
  device_id: string;
  ts: number;
  kind: string;
  chat_id: string | null;
  payload: string;
  cause_id: string | null;
  command_id: string | null;
}

export const EVENT_COLUMNS = 'seq, id, device_id, ts, kind, chat_id, payload, cause_id, command_id';

export function fromRow(row: EventRow): LoggedEvent {
  return {
    seq: row.seq,
    id: row.id,
    deviceId: row.device_id,
    ts: row.ts,
    kind: row.kind,
    chatId: row.chat_id,
    payload: JSON.parse(row.payload) as unknown,
    causeId: row.cause_id,
    commandId: row.command_id,
  };
}
