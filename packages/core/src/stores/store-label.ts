/**
 * One escaping of ids (session ids, namespaces, keys, refs) into text every backend accepts as
 * a label: ASCII letters, digits and `-` stay as they are; every other UTF-8 byte is written `~`
 * and two upper-case hex digits (`user_42` -> `user~5F42`). `~` is reserved by none of them:
 * LangGraph's `PostgresStore` refuses `.`, `%`, `_` and `\` in namespace labels (LIKE syntax),
 * joins labels with `:`, and Postgres text refuses NUL. The empty string is `~` alone, which no
 * other text produces. One-to-one, so two ids never share a label.
 *
 * Lone surrogates have no UTF-8 form: stores refuse them first (`checkedStore`).
 */
export function storeLabel(text: string): string {
  if (text.length === 0) return '~';
  if (PLAIN.test(text)) return text;
  let label = '';
  for (const byte of encoder.encode(text)) {
    label += isPlain(byte) ? String.fromCharCode(byte) : `~${HEX[byte]}`;
  }
  return label;
}

/** The text `storeLabel` made `label` from; throws `TypeError` on a label it cannot have made. */
export function fromStoreLabel(label: string): string {
  if (label === '~') return '';
  if (PLAIN.test(label)) return label;
  const bytes: number[] = [];
  for (let i = 0; i < label.length; i++) {
    const code = label.charCodeAt(i);
    if (code === TILDE) {
      const byte = Number.parseInt(label.slice(i + 1, i + 3), 16);
      if (!/^[0-9A-F]{2}$/.test(label.slice(i + 1, i + 3)) || isPlain(byte)) {
        throw new TypeError(`[baton] [store] not a store label: ${JSON.stringify(label)}`);
      }
      bytes.push(byte);
      i += 2;
    } else if (isPlain(code)) {
      bytes.push(code);
    } else {
      throw new TypeError(`[baton] [store] not a store label: ${JSON.stringify(label)}`);
    }
  }
  return decoder.decode(new Uint8Array(bytes));
}

const PLAIN = /^[A-Za-z0-9-]+$/;
const TILDE = 0x7e;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).toUpperCase().padStart(2, '0'));
const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

function isPlain(byte: number): boolean {
  return (
    (byte >= 0x30 && byte <= 0x39) ||
    (byte >= 0x41 && byte <= 0x5a) ||
    (byte >= 0x61 && byte <= 0x7a) ||
    byte === 0x2d
  );
}
