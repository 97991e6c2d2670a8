/** Secrets of fewer characters than this are not redacted (they would match ordinary text). */
const MIN_SECRET = 4;

/** Replaces every occurrence of the secrets in `text`; the key never leaves the relay, even in errors. */
export function scrubber(secrets: readonly string[]): (text: string) => string {
  // Read at each call: a key set from the app joins the list while the relay runs.
  return (text) => secrets.filter((s) => s.length >= MIN_SECRET).reduce((out, secret) => out.split(secret).join('[redacted]'), text);
}

/**
 * Redacts secrets from text that arrives in pieces (a streamed reply): a secret split across two
 * pieces is caught because the end of a piece that could be the start of a secret is held back
 * until the next piece shows whether it is. Nothing else is delayed, so tokens still flow as they
 * come.
 */
export function streamScrubber(secrets: readonly string[]): { push(text: string): string; end(): string } {
  const present = secrets.filter((s) => s.length >= MIN_SECRET);
  const scrub = scrubber(present);
  let carry = '';
  return {
    push(text) {
      const out = scrub(carry + text);
      let held = 0;
      for (const secret of present) {
        for (let k = Math.min(secret.length - 1, out.length); k > held; k--) {
          if (out.endsWith(secret.slice(0, k))) {
            held = k;
            break;
          }
        }
      }
      carry = out.slice(out.length - held);
      return out.slice(0, out.length - held);
    },
    end() {
      const rest = carry;
      carry = '';
      return rest;
    },
  };
}
