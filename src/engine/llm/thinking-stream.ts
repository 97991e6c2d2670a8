/**
 * A thinking model's stream, split (issue 35, part 1). DeepSeek-R1's distills, QwQ and Qwen3 think
 * in the content between `<think>` and `</think>` (or `<thinking>`); a chat template that opens the
 * block itself leaves only its `</think>` in the stream, so what came before it was thinking all
 * along. Tags may arrive split across chunks ("<thi", "nk>"): a tail that could still become one is
 * held back until the next chunk says.
 */
export interface SplitPiece {
  reply: string;
  thinking: string;
  /** A closing tag with no opening one: the reply so far was thinking, and moves there whole. */
  replyWasThinking?: true;
}

const OPEN = /<(think|thinking)>/i;
const CLOSE = /<\/(think|thinking)>/i;
const TAGS = ['<think>', '<thinking>', '</think>', '</thinking>'];

/** How much of the end of `text` could be the start of a tag still to come. */
function heldTail(text: string): number {
  const lower = text.toLowerCase();
  for (let length = Math.min(11, text.length); length > 0; length--) {
    const tail = lower.slice(-length);
    if (TAGS.some((tag) => tag.startsWith(tail))) return length;
  }
  return 0;
}

export function createThinkingSplitter() {
  let inside = false;
  /** Reply text has been given out since the last block (a lone close then moves it). */
  let replyGiven = false;
  let held = '';
  const split = (text: string, final: boolean): SplitPiece => {
    const piece: SplitPiece = { reply: '', thinking: '' };
    let rest = held + text;
    held = '';
    for (;;) {
      if (inside) {
        const close = CLOSE.exec(rest);
        if (!close) break;
        piece.thinking += rest.slice(0, close.index);
        rest = rest.slice(close.index + close[0].length);
        inside = false;
        continue;
      }
      const open = OPEN.exec(rest);
      const close = CLOSE.exec(rest);
      if (close && (!open || close.index < open.index)) {
        // Thinking whose opening the template wrote: the reply so far, and up to here, was thinking.
        piece.thinking += piece.reply + rest.slice(0, close.index);
        piece.reply = '';
        if (replyGiven) piece.replyWasThinking = true;
        replyGiven = false;
        rest = rest.slice(close.index + close[0].length);
        continue;
      }
      if (!open) break;
      piece.reply += rest.slice(0, open.index);
      rest = rest.slice(open.index + open[0].length);
      inside = true;
    }
    const keep = final ? 0 : heldTail(rest);
    const out = rest.slice(0, rest.length - keep);
    held = rest.slice(rest.length - keep);
    if (inside) piece.thinking += out;
    else piece.reply += out;
    if (piece.reply) replyGiven = true;
    return piece;
  };
  return {
    /** The next chunk of content, as reply and thinking. */
    push: (text: string) => split(text, false),
    /** The end of the stream: whatever was held back is what it looked like. */
    end: () => split('', true),
    /** Whether the stream is inside a thinking block now. */
    thinking: () => inside,
  };
}
