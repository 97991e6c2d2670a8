import { describe, expect, it } from 'vitest';
import { askedTime } from '../../src/engine/memory/query-time.ts';

const NOW = '1890-06-01T20:00:00';

describe('the story time a question names', () => {
  it('reads dates as the app writes them and as people do, and times relative to the chat clock', () => {
    expect(askedTime('What did Ada say on 3 May 1890, 10:20?', NOW)).toEqual({ at: '1890-05-03T10:20:00', spread: 90 });
    expect(askedTime('and on May 3rd, 1890?', NOW)).toEqual({ at: '1890-05-03T12:00:00', spread: 720 });
    expect(askedTime('the 3rd of May 1890 at 9:05', NOW)).toEqual({ at: '1890-05-03T09:05:00', spread: 90 });
    expect(askedTime('What did she give you yesterday?', NOW)).toEqual({ at: '1890-05-31T20:00:00', spread: 720 });
    expect(askedTime('what did Ada give you last week', NOW)!.at).toBe('1890-05-25T20:00:00');
    expect(askedTime('three days ago, by the well', NOW)).toEqual({ at: '1890-05-29T20:00:00', spread: 1440 });
    expect(askedTime('an hour ago', NOW)!.at).toBe('1890-06-01T19:00:00');
  });

  it('names none in a question without a time, "may" as a verb included', () => {
    for (const q of ['Where is the compass?', 'May I see the map?', 'I waited 3 days for you', 'Room 12, May']) expect(askedTime(q, NOW)).toBeNull();
  });
});
