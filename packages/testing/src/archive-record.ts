import { type ArchiveRecord, createEntry, type Entry } from '@baton/core';

/** A tool-result record: the shape the archive holds most often. */
export function archiveRecord(seq: number, text: string, ref = `ref-${seq}`): ArchiveRecord {
  const entry: Entry = createEntry(
    seq,
    'tool',
    [{ type: 'tool-result', callId: `call-${seq}`, name: 'read_file', output: text }],
    ref,
  );
  return { ref, seq, entry, stage: 'fold-tool-results', archivedAt: 1_700_000_000_000 + seq };
}
