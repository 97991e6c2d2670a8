import type { z } from 'zod';
import type { EventDefinition } from '../events/define.ts';
import type { EVENT_DEFINITIONS } from '../events/registry.ts';

type DraftOf<D> =
  D extends EventDefinition<infer K, infer S>
    ? {
        kind: K;
        payload: z.input<S>;
        chatId?: string | null;
        /** Client-made id: a re-sent command with the same first id is applied once. */
        id?: string;
        causeSeq?: number | null;
        /** The cause is an earlier draft of the same command, by index. */
        causeDraft?: number;
      }
    : never;

/** An event a command wants to append, before it has a seq. */
export type EventDraft = DraftOf<(typeof EVENT_DEFINITIONS)[number]>;
