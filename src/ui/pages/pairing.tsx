import qrcode from 'qrcode-generator';
import { createMemo, createSignal, For, Show } from 'solid-js';
import { relayToken } from '../relay-token.ts';
import { PAIR } from '../pairing-link.ts';

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
      <summary>Pair another device</summary>
      <div class="stack">
        <p>Open this link on the other device (or scan the code): it connects to this relay and receives every story.</p>
        <Show when={isLoopback(location.hostname)}>
          <p class="error" role="note">
            This address only works on this computer. For a phone, run the relay with RELAY_HOST set to an address the phone can reach and a RELAY_TOKEN, and open the app there.
          </p>
        </Show>
        <label>
          Pairing link
          <input readonly value={link()} onFocus={(e) => e.currentTarget.select()} />
        </label>
        <div class="row">
          <button type="button" onClick={copy}>
            Copy link
          </button>
          <Show when={copied()}>
            <span role="status">Copied.</span>
          </Show>
        </div>
        <Show when={relayToken()}>
          <p class="muted">The link carries the relay's token: share it only with your own devices.</p>
        </Show>
        <QrCode text={link()} label="Pairing link as a QR code" />
      </div>
    </details>
  );
}
