import DOMPurify from 'dompurify';
import { Marked, type TokenizerAndRendererExtension } from 'marked';
import { defused, withoutRemoteLoads } from '../card-html.ts';
import { t, uiLanguage } from '../i18n/index.ts';
import { look } from '../look.ts';

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

/**
 * How many rendered blocks and block lists are kept. A chat's first page is 20 turns of one to a
 * dozen blocks, and the list reads three chats ahead: a few of those, and the page a player
 * scrolls back and forth over, stay at hand.
 */
const KEPT = 800;

/** A map that forgets what was used least lately past `KEPT` entries. */
function keptMap<V>(): { get(key: string): V | undefined; set(key: string, value: V): void } {
  const entries = new Map<string, V>();
  return {
    get(key) {
      const value = entries.get(key);
      if (value !== undefined) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key, value) {
      entries.set(key, value);
      if (entries.size > KEPT) entries.delete(entries.keys().next().value!);
    },
  };
}

const keptBlocks = keptMap<string[]>();
const keptRendered = keptMap<DocumentFragment>();

/** `storyBlocks`, kept for the text: a chat opened again lexes none of its turns again. */
export function storyBlocksKept(text: string, open = '((', close = '))'): string[] {
  const key = `${open}\u0000${close}\u0000${text}`;
  let blocks = keptBlocks.get(key);
  if (!blocks) keptBlocks.set(key, (blocks = storyBlocks(text, open, close)));
  return blocks;
}

/**
 * `renderStoryBlock` as nodes of their own, from a copy kept for the block: opening a chat clones
 * what it showed before (or what the chat list rendered ahead) instead of parsing and sanitising
 * every block again, which was most of what opening a long chat cost. The copy is kept for what
 * the rendering reads besides the text: the interface's language (an aside's title) and whether
 * remote pictures are allowed. A block with a remote picture is never kept: its picture is filled
 * in later, on the element made for it.
 */
export function storyBlockNodes(raw: string, open = '((', close = '))'): Node[] {
  const key = `${uiLanguage()}\u0000${look().remoteImages ? 1 : 0}\u0000${open}\u0000${close}\u0000${raw}`;
  let kept = keptRendered.get(key);
  if (!kept) {
    const fragment = renderStoryBlock(raw, open, close);
    if (fragment.querySelector('img[data-remote]')) return [...fragment.childNodes];
    keptRendered.set(key, (kept = fragment));
  }
  return [...(kept.cloneNode(true) as DocumentFragment).childNodes];
}

/**
 * Renders texts' blocks ahead of their showing (the chat list's first pages, read ahead), in the
 * browser's idle time, a few at a time, so a click lays out copies instead.
 */
export function renderAhead(texts: string[], open = '((', close = '))'): void {
  // The newest turns first: they are what an open shows first.
  const waiting = [...texts];
  const idle = globalThis.requestIdleCallback ?? ((run: (deadline: { timeRemaining(): number }) => void) => setTimeout(() => run({ timeRemaining: () => 5 }), 0));
  const step = (deadline: { timeRemaining(): number }) => {
    while (waiting.length && deadline.timeRemaining() > 2) for (const raw of storyBlocksKept(waiting.pop()!, open, close)) storyBlockNodes(raw, open, close);
    if (waiting.length) idle(step);
  };
  if (waiting.length) idle(step);
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
