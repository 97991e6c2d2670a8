import { writeFileSync } from 'node:fs';
import { currentSchema } from './schema.ts';

// `npm run schema`: writes docs/schema.sql from the migrations.
writeFileSync(new URL('../../docs/schema.sql', import.meta.url), await currentSchema());
console.log('docs/schema.sql written');
