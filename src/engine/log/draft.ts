import type { z } from 'zod';
import type { EventDefinition } from '../events/define.ts';
import type { EVENT_DEFINITIONS } from '../events/registry.ts';

type DraftOf<D> =
  D extends EventDefinition<infer K, infer S>
    ? {
        kind: K;
        payload: z.input<S>;
        chatId?: string | null;
        /** The tab's id for the user action; set on a command's first event by `command()`. */
        commandId?: string;
        /** The event that caused this one, by id. */
        causeId?: string | null;
        /** The cause is an earlier draft of the same command, by index. */
        causeDraft?: number;
      }
    : never;

/** An event a command wants to append, before it has an id or a seq. */
export type EventDraft = DraftOf<(typeof EVENT_DEFINITIONS)[number]>;
