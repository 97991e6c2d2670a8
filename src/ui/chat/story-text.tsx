import { For, type JSX } from 'solid-js';

/**
 * Light markdown for story text, rendered as nodes (never as HTML, so a reply cannot inject
 * markup): paragraphs, > blockquotes, **bold**, *italic* or _italic_ (actions), and OOC asides
 * ((like this)) dimmed and smaller.
 */
type Inline = { kind: 'text' | 'bold' | 'italic' | 'ooc'; text: string };

function escapeForRegex(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function inlineSpans(text: string, oocOpen = '((', oocClose = '))'): Inline[] {
  const pattern = new RegExp(`(${escapeForRegex(oocOpen)}[\\s\\S]*?(?:${escapeForRegex(oocClose)}|$))|\\*\\*([^*]+)\\*\\*|\\*([^*\\n]+)\\*|_([^_\\n]+)_`, 'g');
  const spans: Inline[] = [];
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) spans.push({ kind: 'text', text: text.slice(last, match.index) });
    if (match[1] !== undefined) spans.push({ kind: 'ooc', text: match[1] });
    else if (match[2] !== undefined) spans.push({ kind: 'bold', text: match[2] });
    else spans.push({ kind: 'italic', text: match[3] ?? match[4] ?? '' });
    last = match.index + match[0].length;
  }
  if (last < text.length) spans.push({ kind: 'text', text: text.slice(last) });
  return spans;
}

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
