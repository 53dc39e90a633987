import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '@baton/cli';
import { skipUnless } from '@baton/test-support/skip-unless.ts';
import { SESSIONS_DIR } from '@baton/test-support/transcripts.ts';
import { describe, expect, it } from 'vitest';
import { summarizeSession } from './index.ts';

const ORIGINALS = join(SESSIONS_DIR, '..', 'originals');
const skip = skipUnless(existsSync(ORIGINALS), `../shared/corpus/sessions/originals (at ${ORIGINALS})`);

/**
 * The six real session files as their tools wrote them, and the model calls each agent made,
 * counted in the raw file: Claude Code's distinct assistant `message.id`s of the main thread
 * (or of the sub-agent), Codex's `token_count` events, smolagents' steps with a model output,
 * tau2's agent messages with a cost (its greeting is scripted).
 */
const SESSIONS = [
  { file: 'coding-claude-code-nextjs.jsonl', format: 'Claude Code', calls: 9 },
  { file: 'coding-claude-code-nextjs.jsonl', thread: 'sidechain-5', format: 'Claude Code', calls: 53 },
  { file: 'coding-claude-code-gomod.jsonl', format: 'Claude Code', calls: 31 },
  { file: 'coding-codex-vscode-gomod.jsonl', format: 'Codex', calls: 19 },
  { file: 'research-smolagents-toolcalling-gaia.jsonl', format: 'smolagents', calls: 5 },
  { file: 'data-smolagents-codeagent-gaia.jsonl', format: 'smolagents', calls: 9 },
  { file: 'customer-service-tau2-telecom.json', format: 'tau2', calls: 20 },
];

describe.skipIf(skip)('session files as their tools wrote them', () => {
  for (const { file, thread, format, calls } of SESSIONS) {
    it(`${file}${thread ? ` --thread ${thread}` : ''}: read as ${format}, replayed call by call within the budget`, async () => {
      const summary = await summarizeSession(join(ORIGINALS, file), thread);
      expect(summary.format).toContain(format);
      expect(summary.modelCalls).toBe(calls);
      const baton = summary.policies.find((p) => p.name === 'Baton');
      expect(baton?.overBudget).toBe(0);
      expect(baton?.peak).toBeLessThanOrEqual(12_800);
    });
  }

  it('baton replay --window 16k --report exits 0 on each original', async () => {
    for (const { file, thread } of SESSIONS) {
      let said = '';
      const io = { out: (t: string) => (said += t), err: (t: string) => (said += t), isTTY: false };
      const report = join(process.env.TMPDIR ?? '/tmp', `baton-session-${file}.html`);
      const args = ['replay', join(ORIGINALS, file), '--window', '16k', '--report', report];
      const code = await main(thread ? [...args, '--thread', thread] : args, io);
      expect(code, said).toBe(0);
      expect(said).not.toContain('unexpected error');
    }
  });
});
