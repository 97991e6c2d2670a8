import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { currentSchema } from '../support/schema.ts';

it('docs/schema.sql is the schema the migrations build (run `npm run schema` after adding one)', async () => {
  const snapshot = readFileSync(new URL('../../docs/schema.sql', import.meta.url), 'utf8');
  expect(await currentSchema()).toBe(snapshot);
});
