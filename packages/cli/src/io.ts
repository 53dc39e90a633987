/** Where the CLI writes: stdout, stderr and what it knows of the terminal (injected, so tests capture it). */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** A TTY gets a live progress bar; anything else plain lines. */
  isTTY: boolean;
  /** Width of that terminal (default 80). */
  columns?: number;
}
