import qrcode from 'qrcode-generator';
import { createMemo, createSignal, For, Show } from 'solid-js';
import { relayToken } from '../relay-token.ts';
import { PAIR } from '../pairing-link.ts';
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

/** "Pair another device": a link and its QR code, carrying this relay's address and token. */
export function PairingPanel() {
  const [copied, setCopied] = createSignal(false);
  const link = () => `${location.origin}/settings${relayToken() ? `${PAIR}${encodeURIComponent(relayToken())}` : '#sync'}`;
  const copy = () =>
    void navigator.clipboard.writeText(link()).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <details class="more-details">
      <summary>{t('pairing.title')}</summary>
      <div class="stack">
        <p>{t('pairing.about')}</p>
        <Show when={isLoopback(location.hostname)}>
          <p class="error" role="note">
            {t('pairing.loopback')}
          </p>
        </Show>
        <label>
          {t('pairing.link')}
          <input readonly value={link()} onFocus={(e) => e.currentTarget.select()} />
        </label>
        <div class="row">
          <button type="button" onClick={copy}>
            {t('pairing.copy')}
          </button>
          <Show when={copied()}>
            <span role="status">{t('pairing.copied')}</span>
          </Show>
        </div>
        <Show when={relayToken()}>
          <p class="muted">{t('pairing.carriesToken')}</p>
        </Show>
        <QrCode text={link()} label={t('pairing.qr')} />
      </div>
    </details>
  );
}
