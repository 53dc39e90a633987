import type { NoteSection, NotesBackend, PutResult } from '@baton/core';
import type { MastraMemory } from '@mastra/core/memory';

/** Text before the first `## ` heading (a template's own lines) is this section. */
export const PREAMBLE_SECTION = 'working memory';

/**
 * Working memory as the agent's notes: `## name` headings delimit sections; the lines before
 * the first heading (a Mastra template, the agent's own free text) are one more section.
 */
export function parseWorkingMemory(text: string | null): NoteSection[] {
  if (!text || text.trim().length === 0) return [];
  const sections: NoteSection[] = [];
  const lines = text.split('\n');
  let name = PREAMBLE_SECTION;
  let body: string[] = [];
  const flush = () => {
    const joined = body.join('\n').trim();
    if (joined.length > 0) sections.push({ name, text: joined });
  };
  for (const line of lines) {
    const heading = /^## (.+)$/.exec(line);
    if (heading) {
      flush();
      name = (heading[1] as string).trim();
      body = [];
    } else body.push(line);
  }
  flush();
  return sections;
}

export function renderWorkingMemory(sections: readonly NoteSection[]): string {
  return sections.map((s) => (s.name === PREAMBLE_SECTION ? s.text : `## ${s.name}\n${s.text}`)).join('\n\n');
}

/** A version for text that has none: its FNV-1a hash, 0 for no text (as "does not exist"). */
function versionOf(text: string | null): number {
  if (!text) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0) + 1;
}

export interface ThreadScope {
  threadId: string;
  resourceId?: string;
}

/**
 * The agent's notes as Mastra's working memory (thread or resource scope, as the Memory is
 * configured): the `notes` tool edits working memory, and an edit by Mastra's own
 * `updateWorkingMemory` tool is the agent's notes too. Versions are hashes of the text, so a
 * write over a concurrent change is refused and retried by the core.
 */
export function workingMemoryNotes(
  memory: MastraMemory,
  scopeOf: (sessionId: string) => ThreadScope,
): NotesBackend {
  return {
    async read(sessionId) {
      const text = await memory.getWorkingMemory(scopeOf(sessionId));
      return { sections: parseWorkingMemory(text), version: versionOf(text) };
    },
    async version(sessionId) {
      return versionOf(await memory.getWorkingMemory(scopeOf(sessionId)));
    },
    async write(sessionId, sections, expectedVersion): Promise<PutResult> {
      const scope = scopeOf(sessionId);
      const currentVersion = versionOf(await memory.getWorkingMemory(scope));
      if (currentVersion !== expectedVersion) return { ok: false, currentVersion };
      const text = renderWorkingMemory(sections);
      await memory.updateWorkingMemory({ ...scope, workingMemory: text });
      return { ok: true, version: versionOf(text) };
    },
  };
}

const DATA = /<working_memory_data>\n?([\s\S]*?)\n?<\/working_memory_data>/;

/**
 * Mastra injects working memory once per run (a system message tagged `memory`); this puts
 * another text in its place (the working memory a compaction rendered, so the run's later
 * steps send the same prefix). Returns the refreshed message texts, or undefined when
 * nothing changed.
 */
export function refreshWorkingMemoryMessages(
  messages: readonly string[],
  current: string,
): string[] | undefined {
  let changed = false;
  const refreshed = messages.map((text) => {
    const match = DATA.exec(text);
    if (!match || match[1] === current) return text;
    changed = true;
    return text.replace(DATA, () => `<working_memory_data>\n${current}\n</working_memory_data>`);
  });
  return changed ? refreshed : undefined;
}

/** A prompt with the working memory in its system messages replaced by `text` (the others as they are). */
export function withWorkingMemory<M extends { role: string; content: unknown }>(
  prompt: M[],
  text: string,
): M[] {
  return prompt.map((message) => {
    if (message.role !== 'system' || typeof message.content !== 'string') return message;
    const [refreshed] = refreshWorkingMemoryMessages([message.content], text) ?? [];
    return refreshed === undefined ? message : { ...message, content: refreshed };
  });
}
