/** Where the CLI writes: the command's output, and what it tells the user along the way. */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** A TTY gets a live progress bar; anything else plain lines. */
  isTTY: boolean;
  /** Width of that terminal (default 80). */
  columns?: number;
}
