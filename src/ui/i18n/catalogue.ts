import type { en } from './en.ts';

/** Another language's catalogue: every key English has, each text a text, each function the same function. */
export type Catalogue<T = typeof en> = { [K in keyof T]: T[K] extends string ? string : T[K] extends (...args: infer A) => string ? (...args: A) => string : Catalogue<T[K]> };
