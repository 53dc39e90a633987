import { describe, expect, it } from 'vitest';
import { createBaton } from '../session/baton.ts';
import { pairingViolation } from '../transcript/projection-check.ts';
import { createEntry, type Entry, type Part, toolCalls } from '../transcript/transcript.ts';
import { dropStaleToolTraffic } from './stages/drop-stale-tool-traffic.ts';
import { truncateOldest } from './stages/truncate-oldest.ts';

const words = (n: number, seed: number) =>
  Array.from({ length: n }, (_, i) => `w${(i * 13 + seed) % 97}`).join(' ');

/**
 * An agent loop as the AI SDK hands it over (keys from position and content, no host ids) or,
 * with `ids`, as LangChain and Mastra do (an edit keeps the id, the ledger binds the content):
 * the opening request, then `groups` assistant messages with three tool calls each and their
 * results, then a final answer and a new request. `marker` changes the first assistant
 * message's content the way a host does between two calls (a provider part added or
 * dropped, a text re-rendered) while its results stay byte-identical.
 */
function loop(groups: number, marker: string | undefined, ids = false): Entry[] {
  const entry = (seq: number, role: Entry['role'], parts: Part[] | string) =>
    createEntry(seq, role, parts, ids ? `msg-${seq}` : undefined);
  const entries: Entry[] = [entry(0, 'user', 'OPENING: audit the repository')];
  for (let g = 0; g < groups; g++) {
    const calls: Part[] = [0, 1, 2].map((c) => ({
      type: 'tool-call',
      id: `call-${g}-${c}`,
      name: 'read_file',
      input: { path: `src/file-${g}-${c}.ts` },
    }));
    const text: Part[] = [{ type: 'text', text: `Reading batch ${g}.` }];
    if (g === 0 && marker !== undefined)
      text.push({ type: 'opaque', kind: 'custom', value: { marker }, tokens: 0 });
    entries.push(entry(entries.length, 'assistant', [...text, ...calls]));
    entries.push(
      entry(
        entries.length,
        'tool',
        [0, 1, 2].map((c) => ({
          type: 'tool-result',
          callId: `call-${g}-${c}`,
          name: 'read_file',
          output: words(150, g * 3 + c),
        })),
      ),
    );
  }
  entries.push(entry(entries.length, 'assistant', 'Audit done.'));
  entries.push(entry(entries.length, 'user', 'Now summarise the risks.'));
  return entries;
}

describe('a tool-call message the host changes keeps its pairing', () => {
  const cases = [dropStaleToolTraffic, truncateOldest].flatMap((stage) => [
    { stage, ids: false },
    { stage, ids: true },
  ]);
  for (const { stage, ids } of cases) {
    it(`after ${stage.name}, keyed ${ids ? 'by host ids' : 'by position and content'}: the changed call message and its unchanged results stay together`, async () => {
      const baton = createBaton({ contextWindow: 9_000, stages: [stage()], truncateAt: 0.8 });
      const session = baton.session(`edited-call-${stage.name}-${ids}`);
      const first = await session.prepare({ entries: loop(12, undefined, ids) });
      expect(first.outcome).toBe('compacted');
      // The first group was evicted as a whole (its calls and results are gone together).
      expect(first.entries.some((e) => toolCalls(e).some((c) => c.id === 'call-0-0'))).toBe(false);

      // The host changed the first assistant message (its key with it); its results did not change.
      const edited = loop(12, 'anthropic.message_start', ids);
      const second = await session.prepare({ entries: edited });
      expect(pairingViolation(second.entries)).toBeUndefined();
      // The changed message is shown as it is now, with its results (an edit is never hidden).
      const shown = second.entries.find((e) => toolCalls(e).some((c) => c.id === 'call-0-0'));
      expect(shown?.parts).toBe(edited[1]!.parts);
      expect(second.entries[second.entries.indexOf(shown!) + 1]?.parts).toBe(edited[2]!.parts);
    });
  }
});
