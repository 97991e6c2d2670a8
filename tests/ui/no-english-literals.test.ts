import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The interface's words come from its catalogues (issue 34, part 3): a word written straight into
 * a component shows in English whatever the player's language. This reads every component and
 * lists each text between tags, and each label, title, placeholder or alt given as a literal,
 * that holds a word. Names that are the same in every language are allowed, each said here.
 */
const ALLOWED = new Set([
  'Roleplay Engine', // the app's name
  'Featherless', // a company's name
  '(llama.cpp, Ollama, …)', // servers' names
  'http://127.0.0.1:8080/v1', // an address
]);

const UI = join(import.meta.dirname, '../../src/ui');
const NAMED = new Set(['aria-label', 'title', 'placeholder', 'label', 'alt', 'hint']);

function componentFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? componentFiles(join(dir, entry.name)) : entry.name.endsWith('.tsx') ? [join(dir, entry.name)] : [],
  );
}

/** The literal texts an expression shows as it is: itself, or either branch of a choice. */
function wordsOf(expression: ts.Expression): string[] {
  if (ts.isParenthesizedExpression(expression)) return wordsOf(expression.expression);
  if (ts.isConditionalExpression(expression)) return [...wordsOf(expression.whenTrue), ...wordsOf(expression.whenFalse)];
  if (ts.isBinaryExpression(expression) && [ts.SyntaxKind.BarBarToken, ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.AmpersandAmpersandToken].includes(expression.operatorToken.kind)) return wordsOf(expression.right);
  const text = ts.isStringLiteral(expression) || ts.isNoSubstitutionTemplateLiteral(expression) ? expression.text : ts.isTemplateExpression(expression) ? [expression.head.text, ...expression.templateSpans.map((span) => span.literal.text)].join(' ') : '';
  return /[A-Za-z]{2,}/.test(text) && !ALLOWED.has(text.trim()) ? [text.trim()] : [];
}

function literalWords(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: string[] = [];
  const where = (node: ts.Node) => `${relative(UI, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node) => {
    if (ts.isJsxText(node)) {
      const text = node.text.replace(/\s+/g, ' ').trim();
      if (/[A-Za-z]{2,}/.test(text) && !ALLOWED.has(text)) found.push(`${where(node)} ${text}`);
    }
    if (ts.isJsxAttribute(node) && NAMED.has(node.name.getText()) && node.initializer && ts.isStringLiteral(node.initializer)) {
      const text = node.initializer.text.trim();
      if (/[A-Za-z]{2,}/.test(text) && !ALLOWED.has(text)) found.push(`${where(node)} ${node.name.getText()}="${text}"`);
    }
    // `{'Save'}`, `{busy ? 'Saving…' : 'Save'}`, `{`${n} turns`}` between tags or as a named attribute.
    const shown = ts.isJsxExpression(node) && node.expression && (ts.isJsxElement(node.parent) || ts.isJsxFragment(node.parent) || (ts.isJsxAttribute(node.parent) && NAMED.has(node.parent.name.getText())));
    if (shown) for (const text of wordsOf(node.expression!)) found.push(`${where(node)} {${text}}`);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the interface', () => {
  it('writes no word of its own into a component: every text, label, title and placeholder comes from a catalogue', () => {
    expect(componentFiles(UI).flatMap(literalWords)).toEqual([]);
  });
});
