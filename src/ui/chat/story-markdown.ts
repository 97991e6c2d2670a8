import DOMPurify from 'dompurify';
import { Marked, type TokenizerAndRendererExtension } from 'marked';
import { defused, withoutRemoteLoads } from '../card-html.ts';
import { t } from '../i18n/index.ts';

/**
 * Story text (replies, the player's lines, greetings, memories) as players write it: markdown
 * (emphasis, strong, strikethrough, headings, lists, quotes, code, rules, tables, links) and the
 * small HTML subset cards use (b, i, u, s, br, span or font with a colour, details/summary), with
 * `*actions*`, `"speech"` and out-of-character asides marked for their styles.
 *
 * The text is hostile until shown otherwise. marked turns it into markup, DOMPurify keeps only the
 * tags and attributes below (nothing that runs, positions itself, borrows the app's classes or
 * loads from elsewhere), and the result is a DocumentFragment appended as nodes: no string reaches
 * an HTML sink. A colour survives only as a value CSS itself accepts as a colour, set through the
 * CSSOM (the CSP refuses `style` attributes in markup).
 */

const ALLOWED_TAGS = [
  'p', 'br', 'hr', 'em', 'i', 'strong', 'b', 'u', 's', 'del', 'strike', 'ins', 'mark', 'sub', 'sup', 'small',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'ul', 'ol', 'li', 'blockquote', 'code', 'pre', 'kbd',
  'table', 'thead', 'tbody', 'tr', 'th', 'td', 'a', 'span', 'font', 'details', 'summary', 'img',
  'rpe-ooc', 'rpe-speech',
];
const ALLOWED_ATTR = ['href', 'title', 'color', 'open', 'start', 'colspan', 'rowspan', 'align', 'alt', 'src', 'data-rpe-style'];

/** Lines of speech: straight, curly, guillemets and CJK corner quotes, on one line. */
const SPEECH = /^(?:"[^"\n]+"|“[^”\n]+”|«[^»\n]+»|「[^」\n]+」|『[^』\n]+』)/;

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeForRegex(text: string) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** One parser per pair of aside marks (a chat chooses its own). */
const parsers = new Map<string, Marked>();

function parserFor(open: string, close: string): Marked {
  const key = `${open}\u0000${close}`;
  const known = parsers.get(key);
  if (known) return known;
  const aside = new RegExp(`^${escapeForRegex(open)}([\\s\\S]*?)(?:${escapeForRegex(close)}|$)`);
  /** Marks whose content is still markdown, kept visible around it (the quotes, the aside's brackets). */
  const marks = (name: string, pattern: RegExp, find: (src: string) => number, split: (match: RegExpExecArray) => [string, string, string]): TokenizerAndRendererExtension => ({
    name,
    level: 'inline',
    start: (src) => {
      const at = find(src);
      return at < 0 ? undefined : at;
    },
    tokenizer(src) {
      const match = pattern.exec(src);
      if (!match) return undefined;
      const [before, inner, after] = split(match);
      return { type: name, raw: match[0], before, after, tokens: this.lexer.inlineTokens(inner) };
    },
    renderer(token) {
      return `<${name}>${escapeHtml(token.before)}${this.parser.parseInline(token.tokens ?? [])}${escapeHtml(token.after)}</${name}>`;
    },
  });
  const parser = new Marked({
    gfm: true,
    // A single line break in a reply is a line break, as players write and models answer.
    breaks: true,
    extensions: [
      marks('rpe-ooc', aside, (src) => src.indexOf(open), (match) => [open, match[1] ?? '', match[0].slice(open.length + (match[1] ?? '').length)]),
      marks('rpe-speech', SPEECH, (src) => src.search(/["“«「『]/), (match) => [match[0][0]!, match[0].slice(1, -1), match[0].at(-1)!]),
    ],
    renderer: {
      // A heading in a message sits under the chat's own title and the message: `#` is a third level.
      heading({ tokens, depth }) {
        const level = Math.min(depth + 2, 6);
        return `<h${level}>${this.parser.parseInline(tokens)}</h${level}>\n`;
      },
    },
    tokenizer: {
      // Prose indented by four spaces is still prose; code is fenced.
      code: () => undefined,
    },
  });
  parsers.set(key, parser);
  return parser;
}

/**
 * An action cut off before its closing * (a reply stopped mid-action) runs to the end of the text,
 * as the parser treats what the player types, instead of showing a stray *.
 */
function closeCutOffAction(text: string): string {
  return text.replace(/(^|[^*\w])\*(?=[^\s*])([^*]*?)(\s*)$/, (_, before: string, action: string, space: string) => `${before}*${action.trimEnd()}*${space}`);
}

/** The text's top-level blocks, each with its own markdown: a streaming reply re-renders only its last. */
export function storyBlocks(text: string, open = '((', close = '))'): string[] {
  const source = closeCutOffAction(text.replace(/\r\n?/g, '\n'));
  return parserFor(open, close)
    .lexer(source)
    .filter((token) => token.type !== 'space' && token.raw.trim() !== '')
    .map((token) => token.raw);
}

/** One block as safe nodes. */
export function renderStoryBlock(raw: string, open = '((', close = '))'): DocumentFragment {
  const html = parserFor(open, close).parse(raw, { async: false });
  const fragment = DOMPurify.sanitize(defused(html), {
    ADD_FORBID_CONTENTS: ['rpe-style'],
    RETURN_DOM_FRAGMENT: true,
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    // A declaration ("color: red") is not an address, though it has a colon.
    ADD_URI_SAFE_ATTR: ['data-rpe-style', 'color'],
    ALLOW_ARIA_ATTR: false,
    ALLOW_DATA_ATTR: false,
    CUSTOM_ELEMENT_HANDLING: { tagNameCheck: /^rpe-(ooc|speech)$/, attributeNameCheck: () => false, allowCustomizedBuiltInElements: false },
  });
  withoutRemoteLoads(fragment);
  for (const element of [...fragment.querySelectorAll('rpe-ooc, rpe-speech, [data-rpe-style]')]) {
    if (element.localName === 'rpe-ooc') replaceWithSpan(element, 'ooc', t('story.ooc'));
    else if (element.localName === 'rpe-speech') replaceWithSpan(element, 'speech');
    else keepColourOnly(element as HTMLElement);
  }
  dropLayoutNewlines(fragment);
  return fragment;
}

const BLOCK_CONTAINERS = new Set(['ul', 'ol', 'blockquote', 'table', 'thead', 'tbody', 'tr', 'details']);

/** The newlines marked writes between blocks are layout of its output, not the story's words. */
function dropLayoutNewlines(root: Node): void {
  for (const node of [...root.childNodes]) {
    if (node.nodeType === Node.TEXT_NODE) {
      if (/^\s*\n\s*$/.test(node.textContent ?? '') && (root.nodeType === Node.DOCUMENT_FRAGMENT_NODE || BLOCK_CONTAINERS.has((root as Element).localName))) node.remove();
    } else if (node instanceof Element && node.localName !== 'pre') dropLayoutNewlines(node);
  }
}

function replaceWithSpan(element: Element, className: string, title?: string): void {
  const span = document.createElement('span');
  span.className = className;
  if (title) span.title = title;
  span.append(...element.childNodes);
  element.replaceWith(span);
}

/** `style="color: …"` on a span or font keeps its colour (a value CSS accepts as one), and nothing else. */
function keepColourOnly(element: HTMLElement): void {
  const declared = element.getAttribute('data-rpe-style') ?? '';
  element.removeAttribute('data-rpe-style');
  if (element.localName !== 'span' && element.localName !== 'font') return;
  const colour = /(?:^|;)\s*color\s*:\s*([^;]+)/i.exec(declared)?.[1]?.trim();
  if (colour && /^[#\w\s(),.%-]+$/.test(colour) && !/\b(url|var|expression|image)\s*\(/i.test(colour) && CSS.supports('color', colour)) element.style.color = colour;
}
