import { z } from 'zod';
import { defineCommand, defineQuery, none } from '../call.ts';
import { appendEvents } from '../log/append.ts';
import { command } from '../log/command.ts';
import { checkSettingsPatch, readSettings, type Settings } from './settings.ts';

export const settingsCalls = {
  settings: defineQuery({ args: none, reads: ['settings'], run: ({ db }) => readSettings(db) }),
  /** Checks the change against the settings it would produce, then records it; answers the settings now. */
  changeSettings: defineCommand({
    args: z.tuple([z.record(z.string(), z.unknown())]),
    run(ctx, patch): Settings {
      return command(
        ctx,
        ctx.commandId,
        (stampFirst) => {
          const checked = checkSettingsPatch(readSettings(ctx.db), patch as Partial<Settings>);
          appendEvents(ctx, stampFirst([{ kind: 'settings_changed', payload: { patch: checked } }]));
          return readSettings(ctx.db);
        },
        () => readSettings(ctx.db),
      );
    },
  }),
};
