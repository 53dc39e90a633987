import { describe, expect, it } from 'vitest';
import { createBaton, createEntry, UNFIT_STEP_PREFIX } from '../index.ts';
import { isUnfitStepEntry, unfitStepMessage } from './notices.ts';

const text = (seq: number, role: 'user' | 'assistant', body: string) =>
  createEntry(seq, role, [{ type: 'text', text: body }]);

describe('the reply of an unfit step a host stored', () => {
  const reply = unfitStepMessage({ reason: 'the current request 9,000 tokens', checkpointRef: 'cp-1' });

  it('is recognised by its prefix on an assistant text entry only', () => {
    expect(isUnfitStepEntry(text(3, 'assistant', reply))).toBe(true);
    expect(isUnfitStepEntry(text(3, 'user', reply))).toBe(false);
    expect(isUnfitStepEntry(text(3, 'assistant', `Quoting: ${reply}`))).toBe(false);
    const withCall = createEntry(3, 'assistant', [
      { type: 'text', text: reply },
      { type: 'tool-call', id: 'c1', name: 'notes', input: {} },
    ]);
    expect(isUnfitStepEntry(withCall)).toBe(false);
  });

  it('is dropped from the projection, which then reads as changed', async () => {
    const session = createBaton({ contextWindow: 16_000 }).session('stored-unfit-reply');
    const entries = [text(0, 'user', 'hello'), text(1, 'assistant', reply), text(2, 'user', 'shorter')];
    const prepared = await session.prepare({ entries });
    expect(prepared.entries.map((e) => e.seq)).toEqual([0, 2]);
    expect(JSON.stringify(prepared.entries)).not.toContain(UNFIT_STEP_PREFIX);
    expect(prepared.changed).toBe(true);
  });
});
