/**
 * The link targets a Markdown file points at, as a registry page renders them: inline links and
 * images, reference definitions and HTML `href`/`src` attributes. Code (fenced blocks and spans)
 * is left out, since a renderer shows it as text, not as a link.
 */
export function linkTargets(markdown: string): string[] {
  const prose = markdown
    .replace(/^ {0,3}(`{3,}|~{3,})[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, '')
    .replace(/(`+)[\s\S]*?\1/g, 'code');
  const targets: string[] = [];
  // `](target)` closes every inline link and image, nested ones (`[![alt](img)](url)`) included.
  for (const m of prose.matchAll(/\]\(\s*<?([^)\s>]*)/g)) targets.push(m[1] ?? '');
  for (const m of prose.matchAll(/^ {0,3}\[[^\]\n]+\]:\s*<?([^\s>]+)/gm)) targets.push(m[1] ?? '');
  for (const m of prose.matchAll(/\b(?:href|src)\s*=\s*["']([^"']*)["']/gi)) targets.push(m[1] ?? '');
  return targets;
}

/**
 * A target that resolves against wherever the file happens to be shown: on the npm registry page
 * there is no repository beside the README, so `examples/x.ts` or `../core/README.md` is dead.
 * A URL with a scheme works anywhere; an anchor (`#options`) stays within the page.
 */
export function isRelative(target: string): boolean {
  return !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#');
}
