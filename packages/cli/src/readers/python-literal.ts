import type { Json } from './json.ts';

/*
 * The Python repr smolagents writes after "Calling tools:" in a tool-call message: a list of
 * dicts, read back without running Python.
 */

/**
 * A Python literal as `repr` writes it: dicts, lists, tuples, str, int, float, True, False, None.
 * Throws a `SyntaxError` naming the character where it stops.
 *
 * @example parsePythonLiteral("[{'id': 'c1', 'ok': True}]") // [{ id: 'c1', ok: true }]
 */
export function parsePythonLiteral(text: string): unknown {
  let i = 0;
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at character ${i}`);
  };
  const space = () => {
    while (i < text.length && /\s/.test(text[i] as string)) i++;
  };
  const ESCAPES: Record<string, string> = {
    n: '\n',
    r: '\r',
    t: '\t',
    a: '\u0007',
    b: '\b',
    f: '\f',
    v: '\v',
    '\\': '\\',
    "'": "'",
    '"': '"',
    '\n': '',
  };
  const string = (): string => {
    const quote = text[i++];
    let out = '';
    while (i < text.length && text[i] !== quote) {
      const c = text[i++] as string;
      if (c !== '\\') {
        out += c;
        continue;
      }
      const e = text[i++] as string;
      const digits = { x: 2, u: 4, U: 8 }[e];
      if (digits !== undefined) {
        const hex = text.slice(i, i + digits);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== digits) fail('a bad escape');
        out += String.fromCodePoint(Number.parseInt(hex, 16));
        i += digits;
      } else if (/[0-7]/.test(e)) {
        const octal = (e + text.slice(i, i + 2)).match(/^[0-7]{1,3}/)?.[0] as string;
        out += String.fromCharCode(Number.parseInt(octal, 8));
        i += octal.length - 1;
      } else out += ESCAPES[e] ?? `\\${e}`;
    }
    if (text[i++] !== quote) fail('an unterminated string');
    return out;
  };
  const sequence = (close: string, pair: boolean): unknown => {
    i++;
    const items: unknown[] = [];
    const object: Json = {};
    for (;;) {
      space();
      if (text[i] === close) break;
      const item = value();
      if (pair) {
        space();
        if (text[i++] !== ':') fail("a missing ':'");
        // Defined, not assigned: a '__proto__' key in the file is a key, never the object's prototype.
        Object.defineProperty(object, String(item), {
          value: value(),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      } else items.push(item);
      space();
      if (text[i] === ',') i++;
      else if (text[i] !== close) fail(`a missing '${close}'`);
    }
    i++;
    return pair ? object : items;
  };
  const value = (): unknown => {
    space();
    const c = text[i];
    if (c === '{') return sequence('}', true);
    if (c === '[') return sequence(']', false);
    if (c === '(') return sequence(')', false);
    if (c === "'" || c === '"') return string();
    const word = /^(?:True|False|None|-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/.exec(
      text.slice(i, i + 64),
    )?.[0];
    if (word === undefined) return fail(`an unexpected ${JSON.stringify(text.slice(i, i + 12))}`);
    i += word.length;
    return word === 'True' ? true : word === 'False' ? false : word === 'None' ? null : Number(word);
  };
  const result = value();
  space();
  if (i < text.length) fail('text after the value');
  return result;
}
