import { benchEventLog } from './event-log.bench.ts';
import { benchRelay } from './relay.bench.ts';
import { benchBrowser } from './browser.bench.ts';
import { benchChat } from './chat.bench.ts';
import { benchPrompt } from './prompt.bench.ts';
import { benchRetrieval } from './retrieval.bench.ts';
import { benchSteer } from './steer.bench.ts';
import { benchCrash } from './crash.bench.ts';
import { benchLore } from './lore.bench.ts';
import { benchImport } from './import.bench.ts';
import { benchScale } from './scale.bench.ts';
import { benchSync } from './sync.bench.ts';
import { benchAnalysis } from './analysis.bench.ts';
import { benchMultilingual } from './multilingual.bench.ts';
import { benchJsonRepair } from './json-repair.bench.ts';
import { benchTokenizers } from './tokenizers.bench.ts';
import { benchDisk } from './disk.bench.ts';
import { benchBudget } from './budget.bench.ts';
import { benchStorage } from './storage.bench.ts';

/** `npm run bench`: every benchmark, printed as tables. Numbers, never pass/fail. `npm run bench -- relay` runs one. */
const benches: Record<string, () => Promise<void>> = { 'event-log': benchEventLog, relay: benchRelay, prompt: benchPrompt, retrieval: benchRetrieval, browser: benchBrowser, chat: benchChat, steer: benchSteer, crash: benchCrash, lore: benchLore, import: benchImport, scale: benchScale, sync: benchSync, analysis: benchAnalysis, languages: benchMultilingual, json: benchJsonRepair, tokenizers: benchTokenizers, disk: benchDisk, storage: benchStorage, budget: benchBudget };
const only = process.argv.slice(2);
for (const [name, bench] of Object.entries(benches)) {
  if (only.length === 0 || only.includes(name)) await bench();
}
