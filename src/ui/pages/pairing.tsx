import qrcode from 'qrcode-generator';
import { createMemo, createResource, createSignal, For, Show } from 'solid-js';
import { PAIR, relayFetch } from '../relay-token.ts';
import { t } from '../i18n/index.ts';

const isLoopback = (host: string) => /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/.test(host);

/** The QR code of `text`, as SVG squares (no markup strings). */
function QrCode(props: { text: string; label: string }) {
  const modules = createMemo(() => {
    const code = qrcode(0, 'M');
    code.addData(props.text);
    code.make();
    const size = code.getModuleCount();
    const dark: { x: number; y: number }[] = [];
    for (let y = 0; y < size; y++) for (let x = 0; x < size; x++) if (code.isDark(y, x)) dark.push({ x, y });
    return { size, dark };
  });
  return (
    <svg class="qr" role="img" aria-label={props.label} viewBox={`-4 -4 ${modules().size + 8} ${modules().size + 8}`} width="220" height="220">
      <rect x="-4" y="-4" width={modules().size + 8} height={modules().size + 8} fill="#fff" />
      <For each={modules().dark}>{(m) => <rect x={m.x} y={m.y} width="1.02" height="1.02" fill="#000" />}</For>
    </svg>
  );
}

/** What the link carries: a one-time code from the relay, or nothing on a relay without a token. */
type PairingCode = { code: string } | { open: true } | { error: string };

async function newPairing(): Promise<PairingCode> {
  try {
    const response = await relayFetch('/api/devices/pairings', { method: 'POST' });
    const body = (await response.json().catch(() => null)) as { code?: unknown; error?: { message?: string } } | null;
    // No RELAY_TOKEN: the relay answers anyone who reaches it, and the link needs to carry nothing.
    if (response.status === 409) return { open: true };
    if (response.ok && typeof body?.code === 'string') return { code: body.code };
    return { error: body?.error?.message ?? `HTTP ${response.status}` };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * "Pair another device": a link and its QR code to this relay. Where the relay has a token, the
 * link carries a code that works once, within an hour, for a token of the new device's own.
 */
export function PairingPanel() {
  const [copied, setCopied] = createSignal(false);
  const [shown, setShown] = createSignal(false);
  const [pairing, { refetch }] = createResource(shown, newPairing);
  const link = () => {
    const made = pairing();
    return made && 'code' in made ? `${location.origin}/settings${PAIR}${encodeURIComponent(made.code)}` : `${location.origin}/settings#sync`;
  };
  const ready = () => {
    const made = pairing();
    return made !== undefined && !pairing.loading && !('error' in made);
  };
  const copy = () =>
    void navigator.clipboard.writeText(link()).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <details class="more-details" onToggle={(event) => setShown(event.currentTarget.open)}>
      <summary>{t('pairing.title')}</summary>
      <div class="stack">
        <p>{t('pairing.about')}</p>
        <Show when={isLoopback(location.hostname)}>
          <p class="error" role="note">
            {t('pairing.loopback')}
          </p>
        </Show>
        <Show when={pairing.loading}>
          <p class="muted">{t('pairing.making')}</p>
        </Show>
        <Show when={(() => { const made = pairing(); return made && 'error' in made ? made.error : null; })()}>
          {(error) => (
            <p class="error" role="alert">
              {t('pairing.failed', error())}
            </p>
          )}
        </Show>
        <Show when={ready()}>
          <label>
            {t('pairing.link')}
            <input readonly value={link()} onFocus={(e) => e.currentTarget.select()} />
          </label>
          <div class="row">
            <button type="button" onClick={copy}>
              {t('pairing.copy')}
            </button>
            <Show when={'code' in (pairing() ?? {})}>
              <button
                type="button"
                onClick={() => {
                  setCopied(false);
                  void refetch();
                }}
              >
                {t('pairing.newLink')}
              </button>
            </Show>
            <Show when={copied()}>
              <span role="status">{t('pairing.copied')}</span>
            </Show>
          </div>
          <Show when={'code' in (pairing() ?? {})}>
            <p class="muted">{t('pairing.once')}</p>
          </Show>
          <QrCode text={link()} label={t('pairing.qr')} />
        </Show>
      </div>
    </details>
  );
}
