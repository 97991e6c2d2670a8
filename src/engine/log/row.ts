import type { LoggedEvent } from '../events/define.ts';

export interface EventRow {
  seq: number;
  id: string;
  ts: number;
  kind: string;
  chat_id: string | null;
  payload: string;
  cause_seq: number | null;
  superseded_by: number | null;
  hidden_by: number | null;
}

export const EVENT_COLUMNS = 'seq, id, ts, kind, chat_id, payload, cause_seq, superseded_by, hidden_by';

export function fromRow(row: EventRow): LoggedEvent {
  return {
    seq: row.seq,
    id: row.id,
    ts: row.ts,
    kind: row.kind,
    chatId: row.chat_id,
    payload: JSON.parse(row.payload) as unknown,
    causeSeq: row.cause_seq,
    supersededBy: row.superseded_by,
    hiddenBy: row.hidden_by,
  };
}
