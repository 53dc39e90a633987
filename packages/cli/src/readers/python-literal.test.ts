import { describe, expect, it } from 'vitest';
import { parsePythonLiteral } from './python-literal.ts';

describe('parsePythonLiteral', () => {
  it('reads the Python repr smolagents writes after "Calling tools:"', () => {
    expect(
      parsePythonLiteral(
        `[{'id': 'x', 'arguments': {"it's": 'a\\'b\\n\\t\\\\ \\x41\\u00e9\\U0001f600', 'n': -1.5e-05, 'ok': True, 'no': None, 't': (1, 2,)}}]`,
      ),
    ).toEqual([
      { id: 'x', arguments: { "it's": "a'b\n\t\\ Aé😀", n: -1.5e-5, ok: true, no: null, t: [1, 2] } },
    ]);
    expect(() => parsePythonLiteral("[{'a': <object at 0x1>}]")).toThrow(/unexpected/);
    expect(() => parsePythonLiteral("['a'")).toThrow(/missing/);
  });

  it("keeps a '__proto__' key as a key, never as the object's prototype", () => {
    const parsed = parsePythonLiteral("{'__proto__': {'polluted': True}}") as Record<string, unknown>;
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect((parsed as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.keys(parsed)).toEqual(['__proto__']);
  });
});
