/**
 * What an agent run keeps count of across its visits (`AgentRun.book`): its
 * usage in all and per stage, what its sub-agents spent, the stages walked
 * and the seed warnings, the counters, the visit facts, the last answer, and
 * what continue-as-new hands the next run of the workflow
 * (docs/reference/long-runs.md#the-run-continues-as-new). Workflow state,
 * read and written in workflow order.
 */
import {
  addUsage,
  emptyUsage,
  freshFacts,
  noSpend,
  type RunCarry,
  type Spend,
  type StageInput,
  type SubmittedOutput,
  type UsageTotals,
} from '../../src/runtime/index.js';
import { toldCarried } from '../../src/runtime/notice.js';

/** The part of a run's carry the book holds. */
type BookCarry = Pick<
  RunCarry,
  | 'stagesVisited'
  | 'seedWarnings'
  | 'inferences'
  | 'visitTurns'
  | 'facts'
  | 'usage'
  | 'perStage'
  | 'agents'
  | 'answer'
  | 'continued'
  | 'told'
>;

export class RunBook {
  usage = emptyUsage();
  readonly perStage: Record<string, UsageTotals> = {};
  /** What the sub-agents of its visits spent, whole trees (docs/reference/sub-agents.md#usage). */
  agents: Spend = noSpend();
  readonly stagesVisited: string[] = [];
  readonly seedWarnings: string[] = [];
  inferences = 0;
  visitTurns = 0;
  facts = freshFacts(Date.now());
  /** The last answer a `submit_output` call gave, which becomes the run's output. */
  answer: SubmittedOutput | undefined;
  /** The visit a previous run handed over, started again by the run's next visit. */
  handedOver: StageInput | undefined;
  /** Continue-as-new of this run so far (`RUN_CONTINUES_AS_NEW`; 0 without it). */
  continued = 0;
  /** What the run told its webhooks it waits for, by question (`workflows/run/notify.ts`). */
  readonly told = new Set<string>();
  /** The run hands `told` to its next run (`NOTIFY_TOLD_CARRIED`). */
  carriesTold = false;

  addUsage(stage: string, usage: UsageTotals): void {
    this.usage = addUsage(this.usage, usage);
    this.perStage[stage] = addUsage(this.perStage[stage] ?? emptyUsage(), usage);
  }

  /** The book's part of what the next run picks the walk up from; it counts the continue-as-new. */
  carried(): BookCarry {
    return {
      stagesVisited: this.stagesVisited,
      seedWarnings: this.seedWarnings,
      inferences: this.inferences,
      visitTurns: this.visitTurns,
      facts: this.facts,
      usage: this.usage,
      perStage: this.perStage,
      agents: this.agents,
      ...(this.answer ? { answer: this.answer } : {}),
      continued: this.continued + 1,
      ...(this.carriesTold && this.told.size > 0 ? { told: toldCarried(this.told) } : {}),
    };
  }

  /** Takes the book up where the previous run left it. */
  resume(carry: RunCarry): void {
    this.stagesVisited.push(...carry.stagesVisited);
    this.seedWarnings.push(...carry.seedWarnings);
    this.inferences = carry.inferences;
    this.visitTurns = carry.visitTurns;
    this.facts = carry.facts;
    this.usage = carry.usage;
    Object.assign(this.perStage, carry.perStage);
    this.agents = carry.agents;
    this.answer = carry.answer;
    this.continued = carry.continued;
    this.handedOver = carry.visit;
    for (const key of carry.told ?? []) this.told.add(key);
  }
}
