/** A streaming reply as every tab sees it: deltas in order, then the end. */
export type StreamMessage = { turnId: string; type: 'delta'; text: string } | { turnId: string; type: 'end' };

/** The topic a chat's reply streams on, from the leader to every tab. */
export const streamTopic = (chatId: string) => `stream:${chatId}`;
