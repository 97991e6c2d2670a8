import { z } from 'zod';
import { defineCommand } from '../call.ts';
import { fromBase64 } from '../base64.ts';
import { hashOf } from '../events/images.ts';
import type { LogContext } from '../log/context.ts';
import { appendEvents } from '../log/append.ts';
import { command } from '../log/command.ts';
import { CommandRejectedError, EventValidationError } from '../log/errors.ts';

/** A picture as the browser made it: cropped, resized and encoded, in base64. */
export interface NewImage {
  mime: string;
  width: number;
  height: number;
  data: string;
}


/** A bot or you may only wear a picture that is stored (its avatar, a bot's background). */
export function checkAvatar(ctx: LogContext, fields: unknown): void {
  for (const key of ['avatar', 'background'] as const) {
    const hash = (fields as Record<string, unknown> | null)?.[key];
    if (typeof hash === 'string' && !ctx.db.get('SELECT 1 AS x FROM images WHERE hash = ?', [hash])) {
      throw new CommandRejectedError(key === 'avatar' ? 'That picture is not stored here: choose it again.' : 'That background is not stored here: choose it again.');
    }
  }
}

/** Storing pictures: each once, by the hash of its bytes, which the engine computes itself. */
export const imageCalls = {
  /** Stores a picture (or finds it stored already); answers its hash. */
  addImage: defineCommand({
    args: z.tuple([z.object({ mime: z.string().max(40), width: z.number().int(), height: z.number().int(), data: z.string().max(1_500_000) })]),
    run(ctx, image: NewImage): string {
      const { db } = ctx;
      const bytes = typeof image?.data === 'string' ? fromBase64(image.data) : null;
      if (!bytes?.length) throw new CommandRejectedError('That picture could not be read.');
      const hash = hashOf(bytes);
      return command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          if (db.get('SELECT 1 AS x FROM images WHERE hash = ?', [hash])) return hash;
          try {
            appendEvents(ctx, stampFirst([{ kind: 'image_added', payload: { hash, mime: image.mime, width: image.width, height: image.height, data: image.data } as never }]));
          } catch (error) {
            if (error instanceof EventValidationError) throw new CommandRejectedError(`That picture cannot be stored: ${error.issues.map((i) => `${i.path} ${i.message}`.trim()).join('; ')}.`);
            throw error;
          }
          return hash;
        },
        () => hash,
      );
    },
  }),
};
