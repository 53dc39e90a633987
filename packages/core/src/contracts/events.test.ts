import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { createBaton } from '../index.ts';
import { createEntry, type Entry } from '../transcript/transcript.ts';
import type { BatonEvent } from './events.ts';
import type { Prepared } from './prepared.ts';

/** A tool loop: a request, then `steps` read_file calls with results of `chars` characters each. */
function toolLoop(steps: number, chars: number, tag: string): Entry[] {
  const entries: Entry[] = [createEntry(0, 'user', `Task ${tag}: read the files and report.`)];
  for (let step = 1; step <= steps; step++) {
    const id = `${tag}-c${step}`;
    entries.push(
      createEntry(2 * step - 1, 'assistant', [
        { type: 'tool-call', id, name: 'read_file', input: { path: `src/${tag}/${step}.ts` } },
      ]),
      createEntry(2 * step, 'tool', [
        {
          type: 'tool-result',
          callId: id,
          name: 'read_file',
          output: `// ${tag} file ${step}\n${`export const v${step} = ${step};\n`.repeat(chars / 28)}`,
          isError: false,
        },
      ]),
    );
  }
  return entries;
}

describe('events', () => {
  it('carry the session they happened in, through onEvent and Prepared.events, with two chats on one createBaton', async () => {
    const heard: BatonEvent[] = [];
    const baton = createBaton({ contextWindow: 8_000, onEvent: (event) => heard.push(event) });
    const chats = { alpha: baton.session('chat-alpha'), beta: baton.session('chat-beta') };
    const prepared: Record<string, Prepared[]> = { 'chat-alpha': [], 'chat-beta': [] };
    // Interleaved, as a server serves them: each chat's history grows past the window.
    for (let steps = 1; steps <= 12; steps++) {
      for (const [tag, session] of Object.entries(chats)) {
        prepared[session.id]!.push(await session.prepare({ entries: toolLoop(steps, 1_400, tag) }));
      }
    }
    for (const [id, calls] of Object.entries(prepared)) {
      const events = calls.flatMap((call) => call.events);
      expect(events.length).toBeGreaterThan(0);
      for (const event of events) expect(event.sessionId).toBe(id);
    }
    // The listener heard every event of both chats, each stamped with its own chat.
    const all = Object.values(prepared).flatMap((calls) => calls.flatMap((call) => call.events));
    expect(heard).toHaveLength(all.length);
    expect(new Set(heard.map((event) => event.sessionId))).toEqual(new Set(['chat-alpha', 'chat-beta']));
    for (const event of heard) expect(all).toContain(event);
  });

  it('every notice the model reads is also a notice-shown event with the figures its text states', async () => {
    const session = createBaton({ contextWindow: 8_000 }).session('chat');
    const kinds = new Set<string>();
    for (let steps = 1; steps <= 14; steps++) {
      const call = await session.prepare({ entries: toolLoop(steps, 1_600, 'a') });
      const shown = call.events.flatMap((event) => (event.type === 'notice-shown' ? [event.notice] : []));
      // One event per notice, in the trailer's order.
      expect(shown.map((facts) => facts.kind)).toEqual(call.notices.map((notice) => notice.type));
      for (const [i, facts] of shown.entries()) {
        const text = call.notices[i]!.text;
        kinds.add(facts.kind);
        if (facts.kind === 'warning') {
          expect(text).toContain(
            `compaction starts in about ${facts.tokensLeft.toLocaleString('en-US')} tokens`,
          );
          expect(facts.tokensLeft).toBe(Math.max(0, 0.8 * facts.budget - facts.tokens));
          expect(facts.budget).toBe(call.tokens.budget);
        }
        if (facts.kind === 'eviction') {
          expect(facts.tokensFreed).toBeGreaterThan(0);
          expect(text).toContain(`${facts.tokensFreed.toLocaleString('en-US')} tokens freed`);
          expect(facts.spans.length).toBeGreaterThan(0);
          for (const stage of facts.stages) expect(text).toContain(stage);
          for (const span of facts.spans) expect(span.from).toBeLessThanOrEqual(span.to);
        }
        if (facts.kind === 'floor') {
          expect(text).toContain(`below about ${facts.tokens.toLocaleString('en-US')} tokens`);
          expect(text).toContain(`aims at ${facts.target.toLocaleString('en-US')}`);
          expect(facts.tokens).toBeGreaterThan(facts.target);
        }
      }
    }
    expect([...kinds].sort()).toEqual(['eviction', 'floor', 'warning']);
  });

  it("the README's events table lists every event type the engine emits", () => {
    const source = readFileSync(new URL('./events.ts', import.meta.url), 'utf8');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Events'), readme.indexOf('## Invariants'));
    const declared = [...source.matchAll(/type: '([a-z-]+)'/g)].map((match) => match[1]);
    expect(declared.length).toBeGreaterThan(15);
    const listed = [...section.matchAll(/^\| `([a-z-]+)`\s+\|/gm)].flatMap((match) =>
      match[1] === 'type' ? [] : [match[1]],
    );
    expect(listed.sort()).toEqual([...new Set(declared)].sort());
  });

  it("the README's events table names every field of every event, nested ones included, and no field an event lacks", () => {
    const fields = eventFields();
    expect(Object.keys(fields).length).toBeGreaterThan(15);
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Events'), readme.indexOf('## Invariants'));
    const rows = new Map(
      [...section.matchAll(/^\| `([a-z-]+)`\s+\|[^|]*\|(.*)\|$/gm)].map((m) => [
        m[1] as string,
        m[2] as string,
      ]),
    );
    for (const [type, names] of Object.entries(fields)) {
      const cell = rows.get(type) ?? '';
      const written = new Set([...cell.matchAll(/`(\w+)`/g)].map((m) => m[1] as string));
      for (const name of names)
        expect(written.has(name), `${type}: field ${name} not in the README`).toBe(true);
      for (const name of written)
        expect(names.has(name), `${type}: the README names ${name}, which the event lacks`).toBe(true);
    }
  });
});

/**
 * Each event type's field names from the declared type (`BatonEventBody` in events.ts), read by
 * the TypeScript checker: top-level fields but `type`, the fields of the objects they hold
 * (array elements and union members, such as a notice's kinds) and those members' `kind` values.
 */
function eventFields(): Record<string, Set<string>> {
  const file = fileURLToPath(new URL('./events.ts', import.meta.url));
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    lib: ['lib.es2023.d.ts'],
    types: [],
  });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file);
  const alias = source?.statements.find(
    (s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === 'BatonEventBody',
  );
  if (!alias) throw new Error('BatonEventBody not found in events.ts');
  const union = checker.getTypeAtLocation(alias.name);
  const collect = (type: ts.Type, into: Set<string>, depth: number) => {
    const members = type.isUnion() ? type.types : [type];
    for (const member of members) {
      if (checker.isArrayType(member)) {
        const [element] = checker.getTypeArguments(member as ts.TypeReference);
        if (element) collect(element, into, depth);
        continue;
      }
      if (checker.isTupleType(member) || !(member.flags & ts.TypeFlags.Object) || depth > 2) continue;
      for (const property of member.getProperties()) {
        const propertyType = checker.getNonNullableType(checker.getTypeOfSymbol(property));
        into.add(property.name);
        if (property.name === 'kind' && propertyType.isStringLiteral()) into.add(propertyType.value);
        collect(propertyType, into, depth + 1);
      }
    }
  };
  const fields: Record<string, Set<string>> = {};
  for (const member of union.isUnion() ? union.types : [union]) {
    const typeSymbol = member.getProperty('type');
    const literal = typeSymbol && checker.getTypeOfSymbol(typeSymbol);
    if (!literal?.isStringLiteral()) throw new Error('an event without a literal type');
    const names = new Set<string>();
    collect(member, names, 0);
    names.delete('type');
    fields[literal.value] = names;
  }
  return fields;
}
