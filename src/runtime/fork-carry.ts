/**
 * How a fork's run picks up where its original was after turn N
 * (docs/reference/cluster-runs.md#fork): it goes on like a run that continued
 * as new, handed the visit that was live at the fork point, with the region
 * set the original's next inference read. Its book starts again: the fork
 * counts its own usage, stages and visits, and its progress facts are fresh.
 * Pure, bundled into workflow code.
 */
import type { ForkStart } from './activity-types.js';
import { runBudget } from './guardrails.js';
import { noSpend } from './spend.js';
import { emptyUsage, type ForkSeed, type RunCarry, type RunInput, type StageInput } from './types.js';
import { freshFacts } from './visit.js';

/**
 * The carry a fork's run resumes from: its first visit, `<fork id>.1.<stage>`, goes on with the
 * original's counters (so its prompts number the turns alike) and the rebuilt region set.
 * `now` is workflow time in milliseconds.
 */
export function forkCarry(
  runId: string,
  input: RunInput & { fork: ForkSeed },
  start: ForkStart,
  now: number,
): RunCarry {
  const seed = input.fork;
  const carried = { state: start.state, snapshot: start.snapshot, ops: [] };
  const facts = freshFacts(now);
  const ceilings = start.ceilings?.length ? { ceilings: start.ceilings } : {};
  const visit: StageInput = {
    runId,
    blueprintHash: start.hash,
    blueprint: start.blueprint,
    stage: seed.stage,
    carried,
    workdir: input.workdir,
    options: input.options,
    inferences: seed.inferences,
    visitTurns: seed.visitTurns,
    facts,
    usage: emptyUsage(),
    ...(runBudget(start.blueprint) ? { spentBefore: noSpend() } : {}),
    ...(input.child ? { lineage: input.child.lineage } : {}),
    ...ceilings,
  };
  return {
    blueprint: start.blueprint,
    blueprintHash: start.hash,
    ...ceilings,
    carried,
    stagesVisited: [seed.stage],
    seedWarnings: [],
    visits: 1,
    inferences: seed.inferences,
    visitTurns: seed.visitTurns,
    facts,
    usage: emptyUsage(),
    perStage: {},
    agents: noSpend(),
    ...(seed.answer ? { answer: seed.answer } : {}),
    operators: { inbox: [], held: [], paused: false },
    stuck: false,
    continued: 0,
    visit,
  };
}
