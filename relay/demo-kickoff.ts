/**
 * The demo model's reading of a kickoff scene: the place and the time of day its words give ("an
 * airship at dawn", "in the old forest"), so a newcomer's first chats are not all "The Lantern
 * Room, 1 May 1890, 20:00". Plain word matching: the demo has no model behind it.
 */

const TIMES_OF_DAY: [RegExp, string][] = [
  [/\bmidnight\b/i, '00:00'],
  [/\b(dawn|daybreak|sunrise|first light)\b/i, '06:00'],
  [/\bmorning\b/i, '09:00'],
  [/\b(noon|midday)\b/i, '12:00'],
  [/\bafternoon\b/i, '15:00'],
  [/\b(dusk|sunset|twilight|nightfall)\b/i, '19:00'],
  [/\bevening\b/i, '20:00'],
  [/\bnight\b/i, '22:00'],
];
const TIME_WORDS = /^(dawn|daybreak|sunrise|first|midnight|morning|noon|midday|afternoon|dusk|sunset|twilight|nightfall|evening|night|last|once|least|times?)$/i;
const PLACE_NOUNS =
  'airship|ship|boat|deck|train|carriage|car|station|harbour|harbor|dock|port|forest|woods|garden|park|beach|shore|lake|river|sea|cave|mountain|hill|valley|field|desert|' +
  'city|town|village|street|alley|road|bridge|market|square|tavern|inn|bar|pub|cafe|café|restaurant|kitchen|library|school|academy|office|shop|store|house|home|cottage|cabin|' +
  'castle|palace|tower|keep|temple|church|chapel|hall|room|chamber|cellar|attic|camp|ruins|lighthouse|hospital|laboratory|lab|apartment|flat|hotel|manor|estate|farm|barn';
/** "in the old forest", "aboard the Gull", "at the Rusty Anchor": a place after a preposition. */
const AFTER_PREPOSITION = /\b(?:in|inside|on|at|aboard|board|boarding|into|onto|within|near|under|beneath|outside|enter|entering|reach|reaching)\s+((?:the|a|an)\s+)?((?:[A-Za-z'-]+\s+){0,3}?[A-Za-z'-]{3,})(?=\s*(?:[,.;:!?]|\s+(?:as|while|when|where|with|and|at|in|on|under|during|drifts?|sails?)\b|$))/gi;
/** "The airship Meridian", "a quiet tavern": a phrase around a word for a place. */
const AROUND_PLACE_NOUN = new RegExp(`\\b((?:the|a|an)\\s+)((?:[A-Za-z'-]+\\s+){0,2}?(?:${PLACE_NOUNS})(?:\\s+[A-Z][a-z'-]+)?)\\b`, 'i');
const LOOSE_ENDS = /^(the|a|an|as|you|your|of|to|in|at|on|and|with|while|is|are|was)$/i;

export interface KickoffWords {
  place?: { name: string; type: string };
  time?: string;
  year?: number;
  title?: string;
}

const capitalised = (text: string) => text.replace(/^./, (c) => c.toUpperCase());
const placeType = (phrase: string) => new RegExp(`\\b(${PLACE_NOUNS})\\b`, 'i').exec(phrase)?.[1]?.toLowerCase() ?? 'place';

export function readKickoff(scene: string): KickoffWords {
  const words: KickoffWords = {};
  const around = AROUND_PLACE_NOUN.exec(scene);
  if (around) {
    // A name after the place's word is capitalised ("the airship Meridian"); "the deck as" is not one.
    const phrase = around[2]!.trim().replace(/\s+[a-z][\w'-]*$/, (tail) => (new RegExp(`^\\s+(${PLACE_NOUNS})$`, 'i').test(tail) ? tail : ''));
    words.place = { name: capitalised(`${around[1]!.trim()} ${phrase}`), type: placeType(phrase) };
  }
  else {
    for (const match of scene.matchAll(AFTER_PREPOSITION)) {
      const noun = match[2]!.trim();
      const parts = noun.split(/\s+/);
      if (TIME_WORDS.test(parts[0]!) || TIME_WORDS.test(parts.at(-1)!)) continue;
      words.place = { name: capitalised(`${match[1] ? `${match[1].trim()} ` : ''}${noun}`), type: placeType(noun) };
      break;
    }
  }
  const clock = /\b([01]?\d|2[0-3])[:.h]([0-5]\d)\b/.exec(scene);
  if (clock) words.time = `${clock[1]!.padStart(2, '0')}:${clock[2]}`;
  else words.time = TIMES_OF_DAY.find(([pattern]) => pattern.test(scene))?.[1];
  const year = /\b(1[0-9]{3}|2[0-9]{3})\b/.exec(scene);
  if (year) words.year = Number(year[1]);
  // The scene's first words, to the first pause, without a dangling "the" or "as you".
  const opening = scene.replace(/[*_"“”]/g, '').split(/[.!?,;:\n]/)[0]!.trim().split(/\s+/).slice(0, 5);
  while (opening.length > 1 && LOOSE_ENDS.test(opening.at(-1)!)) opening.pop();
  if (opening.join(' ').length >= 3) words.title = opening.join(' ');
  return words;
}

/** The demo's kickoff proposal with what the scene's own words say put in. */
export function fitToKickoff(proposal: unknown, scene: string): unknown {
  if (!proposal || typeof proposal !== 'object') return proposal;
  const words = readKickoff(scene);
  const out = { ...(proposal as Record<string, unknown>) };
  if (words.title && typeof out.title === 'string') out.title = words.title.slice(0, 120);
  const place = out.place as Record<string, unknown> | undefined;
  if (words.place && place && typeof place === 'object') out.place = { ...place, name: words.place.name.slice(0, 120), type: words.place.type.slice(0, 60) };
  if (typeof out.fictionTime === 'string') {
    const [date, time] = out.fictionTime.split('T') as [string, string];
    const year = words.year ?? Number(date.slice(0, 4));
    out.fictionTime = `${String(year).padStart(4, '0')}${date.slice(4)}T${words.time ? `${words.time}:00` : time}`;
  }
  return out;
}
