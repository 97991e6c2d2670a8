import { createMemo, For, type JSX } from 'solid-js';
import { look } from '../look.ts';
import { renderStoryBlock, storyBlockNodes, storyBlocks, storyBlocksKept } from './story-markdown.ts';

/**
 * Story text with its markdown, as safe nodes (story-markdown.ts). Each top-level block renders
 * once for its text: as a reply streams in, only its last block is redrawn, so what is already on
 * screen neither flickers nor loses a selection.
 */
export function StoryText(props: { text: string; ooc?: [string, string]; live?: boolean }): JSX.Element {
  const ooc = () => props.ooc ?? ['((', '))'];
  // A reply still streaming changes its last block with every token: none of those is kept.
  const blocks = createMemo(() => (props.live ? storyBlocks(props.text, ...ooc()) : storyBlocksKept(props.text, ...ooc())));
  // Allowing remote pictures (or no longer) draws the text again; nothing else does.
  const text = () => {
    look().remoteImages;
    return <For each={blocks()}>{(raw) => (props.live ? [...renderStoryBlock(raw, ...ooc()).childNodes] : storyBlockNodes(raw, ...ooc()))}</For>;
  };
  return <>{text()}</>;
}
