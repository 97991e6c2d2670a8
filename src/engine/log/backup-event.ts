import { z } from 'zod';

/** One event as a backup (and, one day, another device) carries it: no local seq, references by id. */
export const eventRow = z.object({
  id: z.string().min(1).max(100),
  device_id: z.string().min(1).max(100),
  ts: z.number().int().min(0),
  kind: z.string().min(1).max(60),
  chat_id: z.string().max(100).nullable(),
  payload: z.string(),
  cause_id: z.string().max(100).nullable(),
  command_id: z.string().max(200).nullable(),
});
export type BackupEvent = z.infer<typeof eventRow>;
