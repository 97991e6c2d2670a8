/** Secrets of fewer characters than this are not redacted (they would match ordinary text). */
const MIN_SECRET = 4;
const REDACTED = '[redacted]';

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const hex = (code: number, digits: number) => code.toString(16).padStart(digits, '0');

/**
 * One character of a secret in every form text can carry it: itself in either case, percent-encoded,
 * or escaped as JSON (`\u0073`, `\/`) or JavaScript (`\x73`) write it; matched case-insensitively.
 */
function charForms(char: string): string[] {
  const code = char.charCodeAt(0);
  const forms = [char.toLowerCase(), char.toUpperCase(), `\\u${hex(code, 4)}`];
  if (code < 0x100) forms.push(`%${hex(code, 2)}`, `\\x${hex(code, 2)}`);
  if (char === '/') forms.push('\\/');
  return [...new Set(forms)];
}

/**
 * The stretches of base64 (standard and URL-safe) that hold the secret whatever surrounds it: for
 * each of the three alignments a secret can take in the encoded bytes, the characters made of its
 * bits alone. Case matters here.
 */
function base64Forms(secret: string): string[] {
  const forms = new Set<string>();
  for (const variant of new Set([secret, secret.toLowerCase(), secret.toUpperCase()])) {
    const bytes = Buffer.from(variant, 'utf8');
    for (let offset = 0; offset < 3; offset++) {
      const encoded = Buffer.concat([Buffer.alloc(offset), bytes, Buffer.alloc(2)]).toString('base64');
      const stretch = encoded.slice(Math.ceil((8 * offset) / 6), Math.floor((8 * (offset + bytes.length)) / 6));
      if (stretch.length >= 8) {
        forms.add(stretch);
        forms.add(stretch.replace(/\+/g, '-').replace(/\//g, '_'));
      }
    }
  }
  return [...forms];
}

interface SecretPattern {
  forms: string[][];
  spelled: RegExp;
  base64: string[];
}

function compile(secret: string): SecretPattern {
  const forms = [...secret].map(charForms);
  const spelled = new RegExp(forms.map((f) => `(?:${f.map(escapeRegExp).join('|')})`).join(''), 'gi');
  return { forms, spelled, base64: base64Forms(secret) };
}

/** The text with every form of every secret replaced by "[redacted]". */
function redactAll(text: string, patterns: readonly SecretPattern[]): string {
  let out = text;
  for (const p of patterns) {
    out = out.replace(p.spelled, REDACTED);
    for (const form of p.base64) out = out.split(form).join(REDACTED);
  }
  return out;
}

/** Whether `text` from `at` to its end could be the start of one of the secret's spellings. */
function couldStart(text: string, at: number, forms: readonly string[][], index = 0): boolean {
  if (at === text.length) return index > 0;
  if (index === forms.length) return false;
  for (const form of forms[index]!) {
    const piece = text.slice(at, at + form.length).toLowerCase();
    const wanted = form.toLowerCase();
    if (piece.length < wanted.length) {
      if (wanted.startsWith(piece)) return true;
    } else if (piece === wanted && couldStart(text, at + form.length, forms, index + 1)) {
      return true;
    }
  }
  return false;
}

const livePatterns = (secrets: readonly string[]) => {
  const cache = new Map<string, SecretPattern>();
  return () =>
    secrets
      .filter((s) => s.length >= MIN_SECRET)
      .map((s) => {
        let compiled = cache.get(s);
        if (!compiled) cache.set(s, (compiled = compile(s)));
        return compiled;
      });
};

/**
 * Replaces every occurrence of the secrets in `text`, in every form it could take there: plain or
 * upper-case, percent-encoded, JSON- or JS-escaped (a body the relay decodes would otherwise hand
 * the key back whole), or base64. The key never leaves the relay, even in errors.
 */
export function scrubber(secrets: readonly string[]): (text: string) => string {
  // Read at each call: a key set from the app joins the list while the relay runs.
  const patterns = livePatterns(secrets);
  return (text) => redactAll(text, patterns());
}

/**
 * Redacts secrets from text that arrives in pieces (a streamed reply): a secret split across two
 * pieces is caught because the end of a piece that could be the start of one of its forms is held
 * back until the next piece shows whether it is. Nothing else is delayed, so tokens still flow as
 * they come.
 */
export function streamScrubber(secrets: readonly string[]): { push(text: string): string; end(): string } {
  const patterns = livePatterns(secrets)();
  const longest = Math.max(0, ...patterns.map((p) => Math.max(p.forms.length * 6, ...p.base64.map((b) => b.length))));
  let carry = '';
  return {
    push(text) {
      const out = redactAll(carry + text, patterns);
      let hold = out.length;
      for (let at = Math.max(0, out.length - longest); at < out.length && hold === out.length; at++) {
        if (patterns.some((p) => couldStart(out, at, p.forms) || p.base64.some((b) => b.startsWith(out.slice(at))))) hold = at;
      }
      carry = out.slice(hold);
      return out.slice(0, hold);
    },
    end() {
      const rest = carry;
      carry = '';
      return rest;
    },
  };
}
