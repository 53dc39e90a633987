import { createAnthropic } from '@ai-sdk/anthropic';
import type { LanguageModelV4Middleware, LanguageModelV4Prompt } from '@ai-sdk/provider';
import { anthropicWire, filler, providerRuleViolations, type WireTurn } from '@baton/testing';
import { type ModelMessage, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type AiSdkSession, createBaton, gptTokenizer, type Prepared, TokenCounter } from './index.ts';

const MODEL = 'claude-sonnet-4-5';

/** Every projection the session prepared, in call order (what Baton counted for each request). */
function preparedOf(session: AiSdkSession): Prepared[] {
  const seen: Prepared[] = [];
  const core = session.core;
  const prepare = core.prepare.bind(core);
  core.prepare = async (input) => {
    const prepared = await prepare(input);
    seen.push(prepared);
    return prepared;
  };
  return seen;
}

/** A file as a read tool returns it: code, then a JSON listing (what tool-heavy agents read). */
function fileContent(path: string, seed: number): string {
  const lines = Array.from(
    { length: 12 + (seed % 7) },
    (_, i) =>
      `export function handle${seed}_${i}(input: Request): Promise<Response> {\n  return route(input, { retries: ${i}, path: '${path}' });\n}`,
  );
  const listing = Array.from({ length: 6 }, (_, i) => ({
    name: `${path}.${i}`,
    size: seed * 31 + i,
    ok: i % 2 === 0,
  }));
  return `${lines.join('\n')}\n${JSON.stringify(listing)}`;
}

/** A coding agent's instructions, about as long as real ones are (a one-liner would be framing only). */
const AGENT_SYSTEM = [
  'You are a coding agent working in a TypeScript monorepo. Your task is to answer questions about the code base accurately.',
  'Work in small steps: list a directory before reading files in it, read a file before making claims about it, and quote the exact function names you found.',
  'Prefer reading the entry points first (index.ts, main.ts), then follow imports. Do not guess paths; when a path does not exist, list its parent directory.',
  'When you answer, name the file and the function, explain in two or three sentences how a request reaches it, and list any open questions.',
  'Never modify files. Never run commands. If a tool fails, say which one and why, then continue with what you have.',
].join('\n');

const tools = {
  read_file: tool({
    description: 'Read a file of the repository',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => fileContent(path, path.length * 7),
  }),
  list_dir: tool({
    description: 'List a directory',
    inputSchema: z.object({ dir: z.string() }),
    execute: async ({ dir }) => ({ dir, entries: filler(600, dir.length).split(' ').slice(0, 40) }),
  }),
};

/** A tool step, then a final answer on request `last`. */
function toolLoop(last: number): (input: { index: number }) => WireTurn {
  return ({ index }) =>
    index >= last
      ? { text: 'All files read; the handler is in src/route.ts.' }
      : index % 3 === 2
        ? {
            text: 'Listing and reading.',
            calls: [
              { name: 'list_dir', input: { dir: `src/pkg${index}` } },
              { name: 'read_file', input: { path: `src/pkg${index}/main.ts` } },
            ],
          }
        : { calls: [{ name: 'read_file', input: { path: `src/module${index}/index.ts` } }] };
}

const CLAUSES = [
  'Der Auftragnehmer erbringt die Leistungen nach den anerkannten Regeln der Technik und zeigt Behinderungen unverzüglich schriftlich an.',
  'Die Vergütung beträgt {n} Euro zuzüglich der gesetzlichen Umsatzsteuer und ist binnen dreißig Tagen nach Zugang der Rechnung fällig.',
  'Änderungen und Ergänzungen dieses Vertrages bedürfen der Schriftform; dies gilt auch für die Aufhebung dieses Schriftformerfordernisses.',
  'Die Haftung für leichte Fahrlässigkeit ist ausgeschlossen, soweit nicht Leben, Körper oder Gesundheit verletzt werden (Ziffer {n}).',
  'Vertrauliche Informationen dürfen Dritten nur mit vorheriger Zustimmung der offenlegenden Partei zugänglich gemacht werden.',
  'Gerichtsstand für alle Streitigkeiten aus diesem Vertrag ist München; es gilt ausschließlich das Recht der Bundesrepublik Deutschland.',
  'Die Kündigungsfrist beträgt {n} Wochen zum Quartalsende; das Recht zur außerordentlichen Kündigung bleibt unberührt.',
];

/** A pasted contract in German: o200k counts it far tighter than the provider's tokenizer. */
function contract(chars: number, seed: number): string {
  const out: string[] = [];
  let length = 0;
  for (let i = 0; length < chars; i++) {
    const clause = `§ ${seed}.${i} ${CLAUSES[(i * 5 + seed) % CLAUSES.length]!.replace('{n}', String(1000 + ((i * 37 + seed) % 9000)))}`;
    out.push(clause);
    length += clause.length + 1;
  }
  return out.join('\n');
}

describe('Baton counts what @ai-sdk/anthropic sends, through its wire format', () => {
  it("counts each request of a 40-step streamText tool loop within 3% of the provider's count", async () => {
    const wire = anthropicWire({ script: toolLoop(39) });
    const anthropic = createAnthropic({ apiKey: 'test-key', fetch: wire.fetch });
    const session = createBaton({ contextWindow: 200_000 }).session('tool-loop');
    const prepared = preparedOf(session);
    const result = streamText({
      model: wrapLanguageModel({ model: anthropic(MODEL), middleware: session.middleware }),
      system: AGENT_SYSTEM,
      tools,
      stopWhen: stepCountIs(40),
      prompt: 'Find where requests are routed.',
    });
    expect(await result.text).toMatch(/All files read/);
    expect(wire.requests).toHaveLength(40);
    expect(prepared).toHaveLength(40);
    expect(wire.requests.flatMap((r) => providerRuleViolations('anthropic', r.body))).toEqual([]);
    // Every streamed step carried a custom part (anthropic.message_start) into the next prompt.
    const errors = wire.requests.map((r, i) => prepared[i]!.tokens.after / r.inputTokens - 1);
    // The first request is counted before any usage was reported: exact o200k counts, no ratio yet.
    for (const [i, error] of errors.entries())
      if (i > 0)
        expect(Math.abs(error), `request ${i}: ${(error * 100).toFixed(2)}%`).toBeLessThanOrEqual(0.03);
  });

  it('two chats on one createBaton calibrate independently: a tool-heavy chat and a pasted German contract, interleaved', async () => {
    let toolRequests = 0;
    const wire = anthropicWire({
      // The tool chat (the one offering tools): three tool steps, then an answer, every turn.
      script: ({ body }) =>
        body.tools === undefined
          ? { text: 'Noted.' }
          : toolLoop(1_000)({ index: toolRequests++ % 4 === 3 ? 1_000 : toolRequests }),
    });
    const anthropic = createAnthropic({ apiKey: 'test-key', fetch: wire.fetch });
    const baton = createBaton({ contextWindow: 200_000 });
    const toolChat = baton.session('tool-heavy');
    const documentChat = baton.session('pasted-contract');
    const documentPrepared = preparedOf(documentChat);
    const modelOf = (session: AiSdkSession) =>
      wrapLanguageModel({ model: anthropic(MODEL), middleware: session.middleware });
    const toolMessages: ModelMessage[] = [];
    const documentMessages: ModelMessage[] = [];
    const documentRequests: number[] = [];
    for (let turn = 0; turn < 6; turn++) {
      toolMessages.push({ role: 'user', content: `Find where requests are routed (pass ${turn}).` });
      const tooling = streamText({
        model: modelOf(toolChat),
        tools,
        stopWhen: stepCountIs(4),
        messages: toolMessages,
      });
      toolMessages.push(...(await tooling.responseMessages));

      documentMessages.push({
        role: 'user',
        content: `Vertragsteil ${turn + 1}:\n${contract(4_000, turn + 1)}\nBitte prüfen.`,
      });
      const reading = streamText({ model: modelOf(documentChat), messages: documentMessages });
      documentMessages.push(...(await reading.responseMessages));
      documentRequests.push(wire.requests.length - 1);
    }
    expect(wire.requests.flatMap((r) => providerRuleViolations('anthropic', r.body))).toEqual([]);
    // After its own first report, the contract chat is counted as the provider counts it, though
    // the tool chat (whose text the provider counts about as o200k does) reported in between.
    for (const [turn, index] of documentRequests.entries()) {
      if (turn === 0) continue;
      const error = documentPrepared[turn]!.tokens.after / wire.requests[index]!.inputTokens - 1;
      expect(Math.abs(error), `contract turn ${turn}: ${(error * 100).toFixed(1)}%`).toBeLessThanOrEqual(
        0.02,
      );
    }
  });

  it('counts 0 for the custom parts @ai-sdk/anthropic adds to streamed steps, and hands them back verbatim', async () => {
    const wire = anthropicWire({ script: toolLoop(1) });
    const anthropic = createAnthropic({ apiKey: 'test-key', fetch: wire.fetch });
    const session = createBaton({ contextWindow: 200_000 }).session('custom-parts');
    const prepared = preparedOf(session);
    // Under Baton: the prompt the provider package is handed (Baton's projection).
    const projections: LanguageModelV4Prompt[] = [];
    const recorder: LanguageModelV4Middleware = {
      specificationVersion: 'v4',
      transformParams: async ({ params }) => {
        projections.push(params.prompt);
        return params;
      },
    };
    const result = streamText({
      model: wrapLanguageModel({ model: anthropic(MODEL), middleware: [session.middleware, recorder] }),
      tools,
      stopWhen: stepCountIs(2),
      prompt: 'Read one file.',
    });
    await result.text;
    expect(wire.requests).toHaveLength(2);
    // The streamed step's custom part reached Baton and went on to the provider package unchanged...
    const custom = projections[1]!.flatMap((m) =>
      typeof m.content === 'string' ? [] : m.content.filter((p) => p.type === 'custom'),
    );
    expect(custom).toEqual([expect.objectContaining({ type: 'custom', kind: 'anthropic.message_start' })]);
    // ...which left it out of the request body.
    expect(JSON.stringify(wire.requests[1]!.body)).not.toContain('message_start');
    // Baton's count grew by what the provider received, not by a 512-token guess for the custom part.
    const exact = new TokenCounter(gptTokenizer('o200k_base'), 512);
    const rawOf = (p: Prepared) =>
      p.entries.reduce((sum, e) => sum + exact.raw(e), 0) +
      exact.rawText(p.system) +
      exact.rawText(p.trailer);
    const batonGrowth = rawOf(prepared[1]!) - rawOf(prepared[0]!);
    const providerGrowth = wire.requests[1]!.inputTokens - wire.requests[0]!.inputTokens;
    expect(Math.abs(batonGrowth - providerGrowth)).toBeLessThan(40);
  });
});
