import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './pack.ts';

/** The marker a README puts on the line before a code block that the consumer test runs. */
const MARKER = '<!-- snippet: quickstart';

/** The code of the block after the quickstart marker in `readme` (a path from the repo root). */
export function quickstart(readme: string): { lang: string; code: string } {
  const text = readFileSync(join(ROOT, readme), 'utf8');
  const at = text.indexOf(MARKER);
  if (at < 0) throw new Error(`${readme} has no "${MARKER} ... -->" block`);
  const block = /```(\w+)\n([\s\S]*?)```/.exec(text.slice(at));
  if (!block) throw new Error(`${readme}: no code block after the quickstart marker`);
  return { lang: block[1] as string, code: block[2] as string };
}

/**
 * The snippet as a consumer project runs it: the line marked `// your provider` (a real
 * provider's import) becomes an import of the project's mock, and the line marked
 * `// your model` becomes `const model = yourModel;`. Everything else runs as written.
 */
export function withMockModel(code: string): string {
  const lines = code.split('\n').map((line) => {
    if (line.includes('// your provider')) return "import { yourModel } from './your-model.js';";
    if (line.includes('// your model')) return 'const model = yourModel;';
    return line;
  });
  if (!code.includes('// your provider')) lines.unshift("import { yourModel } from './your-model.js';");
  return lines.join('\n');
}
