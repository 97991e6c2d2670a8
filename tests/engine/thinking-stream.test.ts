import { describe, expect, it } from 'vitest';
import { createThinkingSplitter } from '../../src/engine/llm/thinking-stream.ts';

/** A stream given in `chunks`, as a reader that moves the reply into thinking when told. */
function read(chunks: string[]): { reply: string; thinking: string } {
  const splitter = createThinkingSplitter();
  let [reply, thinking] = ['', ''];
  for (const piece of [...chunks.map((chunk) => splitter.push(chunk)), splitter.end()]) {
    if (piece.replyWasThinking) [thinking, reply] = [thinking + reply, ''];
    [reply, thinking] = [reply + piece.reply, thinking + piece.thinking];
  }
  return { reply, thinking };
}

describe('a thinking model\'s stream, split', () => {
  const cases: [string, string, { reply: string; thinking: string }][] = [
    ['tags', '<think>plan {a} <b></think>Hello <i>there</i>', { reply: 'Hello <i>there</i>', thinking: 'plan {a} <b>' }],
    ['thinking tags, any case', '<THINKING>x</Thinking>y', { reply: 'y', thinking: 'x' }],
    ['a block the template opened', 'I should greet. Yes.</think>Hello!', { reply: 'Hello!', thinking: 'I should greet. Yes.' }],
    ['no thinking, a "<" of its own', 'Hello <3, said the <thief>.', { reply: 'Hello <3, said the <thief>.', thinking: '' }],
    ['a block never closed', 'Hi.<think>cut off here', { reply: 'Hi.', thinking: 'cut off here' }],
  ];

  it.each(cases)('%s: the same however the stream is cut into chunks', (_name, stream, expected) => {
    expect(read([stream])).toEqual(expected);
    for (let at = 1; at < stream.length; at++) expect(read([stream.slice(0, at), stream.slice(at)]), `cut at ${at}`).toEqual(expected);
    expect(read([...stream])).toEqual(expected);
  });
});
