import { For, type JSX } from 'solid-js';
import { inlineSpans } from './inline-spans.ts';

/**
 * Light markdown for story text, rendered as nodes (never as HTML, so a reply cannot inject
 * markup): paragraphs, > blockquotes, **bold**, *italic* or _italic_ (actions), and OOC asides
 * ((like this)) dimmed and smaller.
 */
function InlineText(props: { text: string; ooc: [string, string] }): JSX.Element {
  return (
    <For each={inlineSpans(props.text, ...props.ooc)}>
      {(span) =>
        span.kind === 'bold' ? (
          <strong>{span.text}</strong>
        ) : span.kind === 'italic' ? (
          <em>{span.text}</em>
        ) : span.kind === 'ooc' ? (
          <span class="ooc" title="Out of character: never sent to the narrator">
            {span.text}
          </span>
        ) : (
          <>{span.text}</>
        )
      }
    </For>
  );
}

export function StoryText(props: { text: string; ooc?: [string, string] }): JSX.Element {
  const blocks = () =>
    props.text
      .replace(/\r\n/g, '\n')
      .split(/\n{2,}/)
      .map((block) => block.trim())
      .filter(Boolean);
  const ooc = () => props.ooc ?? ['((', '))'];
  return (
    <For each={blocks()}>
      {(block) =>
        /^>\s?/.test(block) ? (
          <blockquote>
            <InlineText text={block.replace(/^>\s?/gm, '')} ooc={ooc()} />
          </blockquote>
        ) : (
          <p>
            <For each={block.split('\n')}>
              {(line, i) => (
                <>
                  {i() > 0 && <br />}
                  <InlineText text={line} ooc={ooc()} />
                </>
              )}
            </For>
          </p>
        )
      }
    </For>
  );
}
