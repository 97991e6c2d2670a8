/// <reference lib="webworker" />
import '../engine/zod-without-eval.ts';
import * as Comlink from 'comlink';
import { logPolicyViolations } from '../browser/policy-violations.ts';
import { botFromCard, readCard } from '../engine/for-ui-files.ts';

logPolicyViolations();

/**
 * Reads one card file away from the page: unpacking and parsing a stranger's file (compressed
 * text, a zip, deep JSON) never holds the interface, and the page ends this worker when the file
 * is read, or takes too long, or the worker dies.
 */
const reader = {
  async read(file: File) {
    const read = await readCard(new Uint8Array(await file.arrayBuffer()));
    return { read, bot: botFromCard(read.card.data), fileName: file.name };
  },
};
export type CardReader = typeof reader;
export type CardRead = Awaited<ReturnType<CardReader['read']>>;

Comlink.expose(reader);
