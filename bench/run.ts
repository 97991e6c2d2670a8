import { benchEventLog } from './event-log.bench.ts';

/** `npm run bench`: every benchmark, printed as tables. Numbers, never pass/fail. */
await benchEventLog();
