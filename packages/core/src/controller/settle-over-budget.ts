import { isBuiltInStage } from '../contracts/stage.ts';
import { continueLadder, type LadderInput, type LadderOutput } from '../ladder/ladder.ts';
import { shrinkFloor } from './steady-state.ts';

/** Rounds of the ladder a prompt still over the budget gets after the first. */
export const SETTLE_ROUNDS = 3;

/**
 * A prompt the ladder left over the budget (the call ends `unfit`) gets the backstop's ladder
 * again over what it reached, until nothing more gives way: a stage's gain depends on what ran
 * before it (a summary over a fresh digest is cheaper than over the results it replaced; a
 * truncation of a digest evicts no host entry and tells nothing), so one pass can stop short
 * of what the next call, preparing the same prompt again, would still take. Settled here, the
 * next call leaves it as it is (DESIGN.md invariant 9). `input` is the backstop's ladder (its
 * stages and options), of which the built-in stages run again; under the budget the first
 * result stands.
 */
export async function settleOverBudget(input: LadderInput, first: LadderOutput): Promise<LadderOutput> {
  // A user's stage runs once per call, as it was promised; the built-in ones settle.
  const builtIn = { ...input, stages: input.stages.filter(isBuiltInStage) };
  if (builtIn.stages.length === 0) return first;
  let out = first;
  for (let round = 0; round < SETTLE_ROUNDS && out.tokens > input.budget; round++) {
    const next = await shrinkFloor(builtIn, await continueLadder(builtIn, out));
    if (next.decisions.length === out.decisions.length) break;
    out = next;
  }
  return out;
}
