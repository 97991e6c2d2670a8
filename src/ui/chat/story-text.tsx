import { createMemo, For, type JSX } from 'solid-js';
import { renderStoryBlock, storyBlocks } from './story-markdown.ts';

/**
 * Story text with its markdown, as safe nodes (story-markdown.ts). Each top-level block renders
 * once for its text: as a reply streams in, only its last block is redrawn, so what is already on
 * screen neither flickers nor loses a selection.
 */
export function StoryText(props: { text: string; ooc?: [string, string] }): JSX.Element {
  const ooc = () => props.ooc ?? ['((', '))'];
  const blocks = createMemo(() => storyBlocks(props.text, ...ooc()));
  return <For each={blocks()}>{(raw) => [...renderStoryBlock(raw, ...ooc()).childNodes]}</For>;
}
