import { type Entry, entryText, gptTokenizer, type Prepared, type Session, TokenCounter } from '@baton/core';

/** How the degrade stage begins the preview of a message too large for the window. */
const MESSAGE_PREVIEW = '[baton] This message was too large for the context window';

/**
 * Independent checks of DESIGN.md's invariants on one prepared projection. Written apart from
 * the engine's own guards so that a bug in those cannot hide here.
 */
export interface InvariantContext {
  history: readonly Entry[];
  prepared: Prepared;
  session: Session;
  budget: number;
  pinnedTools?: readonly string[];
  system?: string;
  /** Tokens of the tool schemas sent (0 when none). */
  toolTokens?: number;
}

const sameContent = (a: Entry, b: Entry) =>
  a.role === b.role && JSON.stringify(a.parts) === JSON.stringify(b.parts);

export function checkToolPairing(entries: readonly Entry[]): string | undefined {
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    if (entry.role !== 'assistant') {
      if (entry.role === 'tool') {
        // A tool entry must follow an assistant entry (possibly through other tool entries) that made the call.
        let j = i - 1;
        while (j >= 0 && entries[j]!.role === 'tool') j--;
        const caller = entries[j];
        for (const part of entry.parts) {
          if (part.type !== 'tool-result') continue;
          const found =
            caller?.role === 'assistant' &&
            caller.parts.some((p) => p.type === 'tool-call' && p.id === part.callId);
          if (!found) return `result ${part.callId} (seq ${entry.seq}) has no call`;
        }
      }
      continue;
    }
    const calls = entry.parts
      .filter((p) => p.type === 'tool-call')
      .map((p) => (p.type === 'tool-call' ? p.id : ''));
    if (calls.length === 0) continue;
    const answered = new Set<string>();
    let j = i + 1;
    while (j < entries.length && entries[j]!.role === 'tool') {
      for (const p of entries[j]!.parts) if (p.type === 'tool-result') answered.add(p.callId);
      j++;
    }
    const trailing = j === entries.length;
    for (const id of calls)
      if (!answered.has(id) && !trailing) return `call ${id} (seq ${entry.seq}) has no result`;
  }
  return undefined;
}

function pinned(entry: Entry, tools: readonly string[]): boolean {
  return entry.parts.some(
    (p) => (p.type === 'tool-call' || p.type === 'tool-result') && tools.includes(p.name),
  );
}

/** Returns every violated invariant (empty when all hold). */
export async function invariantViolations(ctx: InvariantContext): Promise<string[]> {
  const { history, prepared } = ctx;
  const projection = prepared.entries;
  const violations: string[] = [];
  const inProjection = new Map(projection.map((e) => [e.key, e]));

  // 1. Tool pairing.
  const pairing = checkToolPairing(projection);
  if (pairing) violations.push(`1 tool pairing: ${pairing}`);

  // 2. System content verbatim and in order; first user request verbatim.
  const systems = history.filter((e) => e.role === 'system');
  const projectedSystems = projection.filter((e) => e.role === 'system');
  if (
    systems.length !== projectedSystems.length ||
    systems.some((e, i) => !sameContent(e, projectedSystems[i]!))
  ) {
    violations.push('2 system content changed or reordered');
  }
  // ...unless it alone leaves no room to work: then a head/tail preview under its key (the full
  // text archived, which invariant 6 checks), so one big message never locks the conversation.
  const shownOrPreviewed = (original: Entry) =>
    projection.some(
      (e) =>
        e.key === original.key &&
        (sameContent(e, original) || (original.role === 'user' && entryText(e).startsWith(MESSAGE_PREVIEW))),
    );
  const firstUser = history.find((e) => e.role === 'user');
  if (firstUser && !shownOrPreviewed(firstUser)) {
    violations.push('2 first user request not verbatim (nor previewed) in projection');
  }

  // 3. A non-system message, the latest user message and the newest step present.
  if (history.some((e) => e.role !== 'system') && !projection.some((e) => e.role !== 'system')) {
    violations.push('3 no non-system message');
  }
  const latestUser = history.findLast((e) => e.role === 'user');
  if (latestUser && !shownOrPreviewed(latestUser)) {
    violations.push('3 latest user message missing');
  }
  const newest = history.at(-1);
  if (newest && newest.role !== 'tool' && !shownOrPreviewed(newest)) {
    violations.push('3 newest entry missing');
  }

  // 4. Pinned tools verbatim.
  for (const entry of history) {
    if (!ctx.pinnedTools?.length || !pinned(entry, ctx.pinnedTools)) continue;
    const projected = inProjection.get(entry.key);
    if (!projected || !sameContent(projected, entry))
      violations.push(`4 pinned entry seq ${entry.seq} not verbatim`);
  }

  // 5. Within budget or unfit, with an independent recount.
  if (prepared.tokens.after > ctx.budget && prepared.outcome !== 'unfit') {
    violations.push(
      `5 over budget (${prepared.tokens.after} > ${ctx.budget}) with outcome ${prepared.outcome}`,
    );
  }
  const counter = new TokenCounter(gptTokenizer('o200k_base'), 512);
  const recount =
    projection.reduce((sum, e) => sum + counter.raw(e), 0) +
    counter.rawText(prepared.system) +
    counter.rawText(prepared.trailer) +
    3 +
    (ctx.toolTokens ?? 0);
  if (recount !== prepared.tokens.after)
    violations.push(`5 reported ${prepared.tokens.after} tokens, recount ${recount}`);

  // 6. Nothing lost: every host entry missing or changed in the projection is archived byte-identical.
  for (const entry of history) {
    const projected = inProjection.get(entry.key);
    if (projected && sameContent(projected, entry)) continue;
    const record = await ctx.session.archive.get(entry.key);
    if (!record) violations.push(`6 evicted entry seq ${entry.seq} (${entry.key}) not in archive`);
    else if (!sameContent(record.entry, entry))
      violations.push(`6 archived entry seq ${entry.seq} differs from the original`);
  }

  // 10. Unconsumed tool results (after the last assistant message) verbatim.
  const lastAssistant = history.findLastIndex((e) => e.role === 'assistant');
  for (const entry of history.slice(lastAssistant + 1)) {
    if (entry.role !== 'tool') continue;
    const projected = inProjection.get(entry.key);
    if (projected && sameContent(projected, entry)) continue;
    // Only the residual degrade stage may touch them, as a preview that says so and names its recall ref.
    const text = JSON.stringify(projected?.parts ?? []);
    const degraded =
      projected?.meta?.synthetic === 'folded' &&
      text.includes('too large for the context window') &&
      text.includes(JSON.stringify(entry.key).slice(1, -1));
    if (!degraded) violations.push(`10 unconsumed result seq ${entry.seq} changed`);
  }
  return violations;
}
