import type { Stage } from '../../contracts/stage.ts';
import { degrade } from './degrade.ts';
import { dropStaleToolTraffic } from './drop-stale-tool-traffic.ts';
import { foldToolResults } from './fold-tool-results.ts';
import { summarize } from './summarize.ts';
import { truncateOldest } from './truncate-oldest.ts';

/** The default ladder, in order: fold -> drop stale tool traffic -> summarize -> truncate oldest -> degrade. */
export function defaultStages(): Stage[] {
  return [foldToolResults(), dropStaleToolTraffic(), summarize(), truncateOldest(), degrade()];
}

export { degrade, dropStaleToolTraffic, foldToolResults, summarize, truncateOldest };
