import { createMemo, For, type JSX } from 'solid-js';
import { look } from '../look.ts';
import { renderStoryBlock, storyBlocks } from './story-markdown.ts';

/**
 * Story text with its markdown, as safe nodes (story-markdown.ts). Each top-level block renders
 * once for its text: as a reply streams in, only its last block is redrawn, so what is already on
 * screen neither flickers nor loses a selection.
 */
export function StoryText(props: { text: string; ooc?: [string, string] }): JSX.Element {
  const ooc = () => props.ooc ?? ['((', '))'];
  const blocks = createMemo(() => storyBlocks(props.text, ...ooc()));
  // Allowing remote pictures (or no longer) draws the text again; nothing else does.
  const text = () => {
    look().remoteImages;
    return <For each={blocks()}>{(raw) => [...renderStoryBlock(raw, ...ooc()).childNodes]}</For>;
  };
  return <>{text()}</>;
}
