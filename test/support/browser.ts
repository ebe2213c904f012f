// The one way the browser suites start a browser: Debian's Chromium (installed by
// `scripts/bootstrap.sh --test` with apt), headless, driven by playwright-core. Never a browser
// download. CHROMIUM_PATH points at another build.
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Launches headless Chromium with the flags this machine needs (no sandbox, no GPU, no network of its own). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}
