/**
 * Renders docs/icon/icon.svg to the PNGs the web app manifest lists, with Debian's Chromium.
 * Run after editing the SVG: `npx tsx docs/icon/render.ts`. The PNGs are committed.
 */
import { readFileSync, writeFileSync, copyFileSync } from 'node:fs';
import { chromium } from 'playwright-core';

const svg = readFileSync(new URL('./icon.svg', import.meta.url), 'utf8');
const out = (name: string) => new URL(`../../public/icons/${name}`, import.meta.url);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage();

async function render(size: number, name: string, padding = 0, background = 'transparent') {
  await page.setViewportSize({ width: size, height: size });
  const inner = size - padding * 2;
  await page.setContent(
    `<html><body style="margin:0;background:${background}"><div style="padding:${padding}px">` +
      svg.replace('<svg ', `<svg width="${inner}" height="${inner}" `) +
      '</div></body></html>',
  );
  writeFileSync(out(name), await page.screenshot({ omitBackground: background === 'transparent' }));
}

await render(192, 'icon-192.png');
await render(512, 'icon-512.png');
await render(180, 'apple-touch-icon.png', 0, '#16141d');
// Maskable: the artwork inside the 80% safe zone, on the background colour.
await render(512, 'icon-maskable-512.png', 52, '#16141d');
await browser.close();
copyFileSync(new URL('./icon.svg', import.meta.url), out('icon.svg'));
console.log('icons written to public/icons/');
