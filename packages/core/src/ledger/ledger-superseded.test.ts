import { describe, expect, it } from 'vitest';
import { createBaton } from '../session/baton.ts';
import { memoryStore } from '../stores/memory-store.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import { applyLedger, type Decision, type Ledger, withoutSuperseded } from './ledger.ts';

const history = Array.from({ length: 8 }, (_, i) =>
  createEntry(i, i % 2 === 0 ? 'user' : 'assistant', `message ${i}`),
);
const summary = (key: string, seq: number, text: string): Entry => ({
  key,
  seq,
  role: 'user',
  parts: [{ type: 'text', text }],
  meta: { synthetic: 'summary' },
});
const key = (i: number) => history[i]!.key;
const text = (parts: readonly { type: string; text?: string }[]) => parts.map((p) => p.text ?? '').join('');

describe('withoutSuperseded', () => {
  // Three generations of summary, a fold a later summary took in, a fold of a summary.
  const decisions: Decision[] = [
    { kind: 'fold', stage: 'fold', key: key(1), parts: [{ type: 'text', text: 'folded one' }] },
    { kind: 'replace', stage: 'sum', keys: [key(1), key(2)], entries: [summary('S1', 1, 'first summary')] },
    { kind: 'replace', stage: 'sum', keys: ['S1', key(3)], entries: [summary('S2', 1, 'second summary')] },
    { kind: 'replace', stage: 'sum', keys: ['S2', key(4)], entries: [summary('S3', 1, 'third summary')] },
    { kind: 'fold', stage: 'fold', key: 'S3', parts: [{ type: 'text', text: 'folded summary' }] },
  ];

  it('gives the same projection while keeping only the text a projection can show', () => {
    const pruned = withoutSuperseded(decisions);
    expect(applyLedger(history, pruned)).toEqual(applyLedger(history, decisions));
    const kept = JSON.stringify(pruned);
    for (const gone of ['folded one', 'first summary', 'second summary']) expect(kept).not.toContain(gone);
    // Folded, not replaced: the summary entry under the fold keeps its text and meta.
    expect(kept).toContain('third summary');
    expect(pruned.map((d) => d.span)).toEqual(decisions.map((d) => d.span));
  });

  it('leaves a ledger with nothing superseded as it is', () => {
    const live = decisions.slice(3);
    expect(withoutSuperseded(live)).toEqual(live);
  });
});

describe('a long session ledger', () => {
  it('stores each summary or fold once: nothing a later decision replaced keeps its text', async () => {
    const store = memoryStore();
    let stored: Ledger = { decisions: [] };
    const put = store.putDocument.bind(store);
    store.putDocument = async (namespace, id, value, version) => {
      if (namespace.endsWith('ledger')) stored = value as Ledger;
      return put(namespace, id, value, version);
    };
    const baton = createBaton({ contextWindow: 4_000, store });
    const session = baton.session('long');
    const entries: Entry[] = [createEntry(0, 'user', 'fix the parser in src/parse.ts')];
    for (let call = 0; call < 150; call++) {
      const id = `call_${call}`;
      entries.push(
        createEntry(entries.length, 'assistant', [
          { type: 'tool-call', id, name: 'read', input: { path: `src/file${call}.ts` } },
        ]),
        createEntry(entries.length + 1, 'tool', [
          {
            type: 'tool-result',
            callId: id,
            name: 'read',
            output: `export const v${call} = ${call};\n`.repeat(40),
          },
        ]),
      );
      await session.prepare({ entries });
    }
    expect(stored.decisions.length).toBeGreaterThan(5);
    const last = new Map<string, number>();
    stored.decisions.forEach((d, i) => {
      for (const k of d.kind === 'fold' ? [d.key] : d.keys) last.set(k, i);
    });
    stored.decisions.forEach((d, i) => {
      if (d.kind === 'fold') {
        if ((last.get(d.key) ?? i) > i) expect(d.parts).toEqual([]);
      } else
        for (const entry of d.entries)
          if ((last.get(entry.key) ?? i) > i && stored.decisions[last.get(entry.key)!]!.kind === 'replace')
            expect(text(entry.parts as Array<{ type: string; text?: string }>)).toBe('');
    });
    // A cold process reading the pruned ledger sends what the warm one does.
    const warm = await session.prepare({ entries });
    const cold = await createBaton({ contextWindow: 4_000, store }).session('long').prepare({ entries });
    expect(cold.entries).toEqual(warm.entries);
  });
});
