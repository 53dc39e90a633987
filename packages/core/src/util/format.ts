/** A token count as people read it in notices and reasons: `12,345`. */
export const formatTokens = (n: number): string => Math.round(n).toLocaleString('en-US');
