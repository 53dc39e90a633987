import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  PREAMBLE_SECTION,
  parseWorkingMemory,
  refreshWorkingMemoryMessages,
  renderWorkingMemory,
} from './working-memory-notes.ts';

const name = fc
  .stringMatching(/^[A-Za-z][A-Za-z0-9 _-]{0,20}$/)
  .map((s) => s.trim())
  .filter((s) => s.length > 0);
const body = fc
  .array(fc.stringMatching(/^[^\n#]{0,40}$/), { minLength: 1, maxLength: 4 })
  .map((lines) => lines.join('\n').trim())
  .filter((text) => text.length > 0);

describe('working memory as notes sections', () => {
  it('parses a template preamble and ## sections', () => {
    const text = '# User\n- **Name**: Ada\n\n## plan\nship v2\nthen audit\n\n## done\nread a.ts';
    expect(parseWorkingMemory(text)).toEqual([
      { name: PREAMBLE_SECTION, text: '# User\n- **Name**: Ada' },
      { name: 'plan', text: 'ship v2\nthen audit' },
      { name: 'done', text: 'read a.ts' },
    ]);
    expect(parseWorkingMemory(null)).toEqual([]);
    expect(parseWorkingMemory('  \n ')).toEqual([]);
  });

  it('round-trips any sections the notes tool can write', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(name, body), { selector: ([n]) => n, maxLength: 6 }), (pairs) => {
        const sections = pairs.map(([n, text]) => ({ name: n, text }));
        expect(parseWorkingMemory(renderWorkingMemory(sections))).toEqual(sections);
      }),
    );
  });

  it('refreshes the data block of Mastra’s working-memory message and leaves other messages alone', () => {
    const mastra =
      'Use updateWorkingMemory.\n<working_memory_data>\nold\n</working_memory_data>\nMore rules.';
    expect(refreshWorkingMemoryMessages([mastra, 'other'], '## plan\nnew $& text')).toEqual([
      'Use updateWorkingMemory.\n<working_memory_data>\n## plan\nnew $& text\n</working_memory_data>\nMore rules.',
      'other',
    ]);
    expect(
      refreshWorkingMemoryMessages(['Use it.\n<working_memory_data>\nsame\n</working_memory_data>'], 'same'),
    ).toBe(undefined);
  });
});
