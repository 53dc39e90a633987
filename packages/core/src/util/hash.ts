/**
 * 64-bit non-cryptographic string hash (two independent 32-bit lanes, murmur-style mixing),
 * returned as 16 hex characters. Pure JavaScript so the core runs on edge runtimes too;
 * used for memo keys and entry keys, where collisions only cost a cache miss or, for keys,
 * are made harmless by the seq prefix.
 */
export function hash64(text: string): string {
  let h1 = 0xdeadbeef ^ text.length;
  let h2 = 0x41c6ce57 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507);
  h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
  h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
}

/** Incremental form of `hash64`: feeds several strings without concatenating them. */
export class Hash64 {
  private h1 = 0xdeadbeef;
  private h2 = 0x41c6ce57;

  update(text: string): this {
    let h1 = this.h1;
    let h2 = this.h2;
    for (let i = 0; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 2654435761);
      h2 = Math.imul(h2 ^ ch, 1597334677);
    }
    // A separator after every field keeps ('ab','c') and ('a','bc') apart.
    this.h1 = Math.imul(h1 ^ 0x1f, 2654435761);
    this.h2 = Math.imul(h2 ^ 0x1f, 1597334677);
    return this;
  }

  digest(): string {
    let h1 = Math.imul(this.h1 ^ (this.h1 >>> 16), 2246822507);
    let h2 = this.h2;
    h1 ^= Math.imul(h2 ^ (h2 >>> 13), 3266489909);
    h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507);
    h2 ^= Math.imul(h1 ^ (h1 >>> 13), 3266489909);
    return (h2 >>> 0).toString(16).padStart(8, '0') + (h1 >>> 0).toString(16).padStart(8, '0');
  }
}
