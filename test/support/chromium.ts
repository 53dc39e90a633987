import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/** Debian's Chromium, the browser the report is checked in. */
export const CHROMIUM = '/usr/bin/chromium';

/** Flags for a closed network (no background connections) running as root. */
export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Installs Debian's chromium when it is missing and this runs as root (the test machines);
 * returns whether the browser is there. Under CI a missing browser is an error.
 */
export function ensureChromium(): boolean {
  if (existsSync(CHROMIUM)) return true;
  if (process.getuid?.() === 0) {
    const apt = (args: string[]) =>
      execFileSync('apt-get', args, {
        stdio: 'ignore',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    try {
      apt(['install', '-y', '-qq', 'chromium']);
    } catch {
      apt(['update', '-qq']);
      apt(['install', '-y', '-qq', 'chromium']);
    }
  }
  if (!existsSync(CHROMIUM) && process.env.CI)
    throw new Error('Chromium is not installed and could not be installed');
  return existsSync(CHROMIUM);
}
