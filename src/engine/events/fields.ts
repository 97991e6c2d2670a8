import { z } from 'zod';
import { FICTION_TIME_PATTERN } from '../fiction-time.ts';

/** Shared payload pieces, so every kind validates ids, texts and times the same way. */

const ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** Any id the app makes (a bot, a chat, a turn, a memory, a scene): a UUID. */
export const uuid = z.string().regex(ID_PATTERN, 'must be a UUID');
/** Another event of the log, by its id (never by local seq, which differs between devices). */
export const eventId = z.string().regex(ID_PATTERN, 'must be an event id');

/**
 * An entity: you or a bot, as 'you' or the bot's id. The one name for it everywhere; a field is
 * named for the part the entity plays (speaker, owner, source, target, participant).
 */
export const entityRef = z.union([z.literal('you'), uuid]);
export type EntityRef = z.infer<typeof entityRef>;

/** The rule a too-long text breaks, in the words the form shows beside the field. */
const atMost = (max: number) => `keep it to ${max.toLocaleString('en-US')} characters or fewer`;
export const shortText = (max: number) => z.string().trim().max(max, atMost(max));
export const requiredText = (max: number) => z.string().trim().min(1, 'must not be empty').max(max, atMost(max));
export const longText = z.string().max(20_000, atMost(20_000));
/** Field limits the forms give their inputs as `maxlength`, so a paste stops where the rule does. */
export const TEXT_LIMITS = { name: 80, pronouns: 40, long: 20_000, relationship: 2_000, sample: 2_000, trait: 80 } as const;

/** In-fiction time: an ISO 8601 date-time (an offset or Z is optional; fiction has no time zone). */
export const fictionTime = z
  .string()
  .regex(FICTION_TIME_PATTERN, 'must be an ISO date-time');

export const significance = z.number().int().min(0).max(3);

/** A stored picture's name: the hex SHA-256 of its bytes (`image_added`). Here, not beside the hashing, so forms need no hash code. */
export const imageHash = z.string().regex(/^[0-9a-f]{64}$/, 'must name a stored picture by its hash');

/** A BCP 47 language tag ("ja", "pt-BR"): the language a story is played in. */
export const languageTag = z
  .string()
  .max(35)
  .regex(/^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'Choose a language from the list.');
