import { describe, expect, it } from 'vitest';
import { digestedCalls, digestLines } from './digest.ts';
import { createEntry, type Entry } from './transcript.ts';

const call = (seq: number, id: string, command: string) =>
  createEntry(seq, 'assistant', [{ type: 'tool-call', id, name: 'bash', input: { command } }]);
const result = (seq: number, id: string, output: string): Entry =>
  createEntry(seq, 'tool', [{ type: 'tool-result', callId: id, name: 'bash', output }]);

describe('a digest line', () => {
  it('reads back as the call and its outcome, without the names the line ends with', () => {
    const lines = digestLines([call(1, 'c1', 'ls src'), result(2, 'c1', 'date_parser.ts\nindex.ts')]);
    expect(lines).toEqual(['- bash({"command":"ls src"}) -> ok, 23 chars: date_parser.ts (names: index.ts)']);
    const text = ['[baton] Earlier tool calls (seq 1-2) condensed to one line each; recall(...)', ...lines];
    expect(digestedCalls(text.join('\n'))).toEqual([
      'bash({"command":"ls src"}) -> ok, 23 chars: date_parser.ts',
    ]);
  });
});
