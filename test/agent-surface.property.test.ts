import { createBaton, type Entry, entryText, type Prepared, type Session } from '@baton/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  batonOptions,
  buildTranscript,
  modelCallPoints,
  type OptionsSpec,
  optionsArb,
  transcriptSpecArb,
} from './support/generate.ts';
import { propertyRuns } from './support/property-runs.ts';

const RUNS = 40;
const noteArb = fc.array(
  fc.record({
    name: fc.constantFrom('plan', 'facts', 'open questions', 'checkpoint'),
    text: fc.string({ minLength: 1, maxLength: 200 }),
  }),
  { minLength: 1, maxLength: 4 },
);

async function loop(history: Entry[], spec: OptionsSpec, setup?: (session: Session) => Promise<void>) {
  const baton = createBaton(batonOptions(spec));
  const session = baton.session('p');
  await setup?.(session);
  const prepared: Prepared[] = [];
  for (const point of modelCallPoints(history))
    prepared.push(await session.prepare({ entries: history.slice(0, point) }));
  return { baton, session, prepared };
}

describe('agent surface properties', () => {
  it('a warning is emitted at most once per episode (between compactions that bring the context below warnAt)', async () => {
    await fc.assert(
      fc.asyncProperty(transcriptSpecArb, optionsArb, async (t, spec) => {
        const { baton, prepared } = await loop(buildTranscript(t), spec);
        const warnLimit = baton.options.warnAt * baton.options.inputBudget!;
        let armed = true;
        for (const p of prepared) {
          const warned = p.notices.some((n) => n.type === 'warning');
          if (warned) {
            expect(armed).toBe(true);
            armed = false;
          }
          if (p.outcome === 'compacted' && p.tokens.after <= warnLimit && !warned) armed = true;
        }
      }),
      propertyRuns(RUNS),
    );
  });

  it('notes survive any ladder run byte-identical, in every system prompt', async () => {
    await fc.assert(
      fc.asyncProperty(transcriptSpecArb, optionsArb, noteArb, async (t, spec, notes) => {
        const written = new Map<string, string>();
        const { session, prepared } = await loop(buildTranscript(t), spec, async (s) => {
          for (const note of notes) {
            try {
              await s.notes.write(note.name, note.text);
              written.set(note.name, note.text);
            } catch {
              // over the cap at tiny windows: the write is refused and nothing changes
            }
          }
        });
        const expected = [...written].map(([name, text]) => ({ name, text }));
        expect(await session.notes.read()).toEqual(expected);
        for (const p of prepared)
          for (const { name, text } of expected) expect(p.system).toContain(`### ${name}\n${text}`);
      }),
      propertyRuns(RUNS),
    );
  });

  it('every recall of an evicted ref returns the original bytes', async () => {
    await fc.assert(
      fc.asyncProperty(transcriptSpecArb, optionsArb, async (t, spec) => {
        const history = buildTranscript(t);
        const { session, prepared } = await loop(history, spec);
        const last = prepared.at(-1)!;
        const kept = new Map(last.entries.map((e) => [e.key, JSON.stringify(e.parts)]));
        const recall = session.tools.find((tool) => tool.name === 'recall')!;
        for (const entry of history) {
          if (kept.get(entry.key) === JSON.stringify(entry.parts)) continue;
          const result = (await recall.execute({ ref: entry.key, limit: 10_000_000 })) as { content: string };
          expect(result.content).toBe(entryText(entry));
        }
      }),
      propertyRuns(RUNS),
    );
  });
});
