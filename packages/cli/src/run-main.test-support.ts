import { main } from './main.ts';

/** Runs `baton <args>` in process, as a non-TTY terminal would: the exit code and what it printed. */
export async function baton(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t), isTTY: false });
  return { code, out, err };
}
