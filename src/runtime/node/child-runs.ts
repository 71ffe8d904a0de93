/**
 * The activities' side of sub-agents (docs/reference/sub-agents.md): the
 * blueprint a child run starts with, read from the blob store (the run's
 * catalog travels in its first blueprint), and the merged report of a
 * fan-out, each worker's answer cut to an equal share and stored as a blob
 * when large, so the parent's history carries a reference.
 */
import { fullText, toContent } from '../../blobs/index.js';
import { LevError } from '../../errors.js';
import { withLaunchOutput } from '../../outputs/spec.js';
import { encodingFor, lookupModel } from '../../providers/builtin-models.js';
import { seedsFromInput } from '../../seeds/index.js';
import type { Content } from '../../shapes/content.js';
import type { Blueprint, OutputSpec } from '../../shapes/frozen-blueprint.js';
import { countTokens, cutMarker, cutToTokens } from '../../tokens/index.js';
import type { ToolCeiling } from '../../tools/tool.js';
import { type SeededRegion, seedRequest } from '../activity-types.js';
import {
  EMPTY_FAN_OUT_REPORT,
  type ReportItem,
  reportCounts,
  reportHeader,
  sectionHeading,
} from '../agents/fan-out-report.js';
import { type ChildBlueprint, childBlueprintOf } from '../agents/lineage.js';
import type { ReportCounts } from '../agents/queue.js';
import { type WorkerShare, workerRunInput } from '../agents/worker-spec.js';
import type { CeilingLayer } from '../types.js';
import { chooseModel } from './model-choice.js';
import type { RunStore } from './run-store.js';
import { resolveRunSeeds } from './seeding.js';
import { ancestorsOf, toolCeilings } from './tool-context.js';

export interface ChildBlueprintRequest {
  /** The tree's first blueprint, which holds the catalog. */
  root: string;
  blueprint: ChildBlueprint;
  output?: OutputSpec;
  /** The child's ancestors. */
  ceiling: CeilingLayer[];
}

/** What a child run starts with: its blueprint, the blueprint's hash, and its ancestors' permissions. */
export interface ChildStart {
  blueprint: Blueprint;
  hash: string;
  /** Each ancestor's `[tool_permissions]` and safe list, for the tools the workflow answers itself. */
  ceilings: ToolCeiling[];
}

/**
 * The blueprint a child runs and its hash: the spawning run's own, or an
 * agent of the catalog, with any requested output; and the permissions of
 * its ancestors, which its agent tools stay under.
 */
export async function childBlueprint(store: RunStore, req: ChildBlueprintRequest): Promise<ChildStart> {
  const ceilings = toolCeilings(await ancestorsOf(store, req.ceiling));
  const start = await blueprintOf(store, req);
  return { ...start, ceilings };
}

/** What a fan-out worker starts with; `seeded` when its seeds were resolved with it. */
export type WorkerStart = ChildStart & { share: WorkerShare; seeded?: SeededRegion[] };

/**
 * A fan-out worker's start: what its siblings share, read back from the blob
 * store, and its blueprint. Given the worker's `task`, it also resolves the
 * seeds of a blueprint whose seeds read nothing from the host, so the worker
 * starts in one step (docs/reference/sub-agents.md#one-workflow-per-worker);
 * any other seeds, or seeds that fail here, are left to the run's own
 * `resolveSeeds` activity, which runs them where tools run and reports
 * their errors.
 */
export async function workerStart(store: RunStore, shared: string, task?: string): Promise<WorkerStart> {
  const share = JSON.parse(await store.blobs.get(shared)) as WorkerShare;
  const start = await childBlueprint(store, { ...childBlueprintOf(share.child), ceiling: share.child.lineage.ceiling });
  if (task === undefined || !seedsFromInput(start.blueprint.regions)) return { ...start, share };
  const stage = share.child.stage ?? start.blueprint.agent.entryStage;
  const seeded = await resolveRunSeeds(store, seedRequest(start.hash, workerRunInput(share, task), stage)).catch(
    () => undefined,
  );
  return { ...start, share, ...(seeded ? { seeded } : {}) };
}

async function blueprintOf(
  store: RunStore,
  req: ChildBlueprintRequest,
): Promise<{ blueprint: Blueprint; hash: string }> {
  let bp: Blueprint;
  if ('hash' in req.blueprint) bp = await store.blueprint(req.blueprint.hash);
  else {
    const root = await store.blueprint(req.root);
    const key = req.blueprint.agent;
    const agent = key === root.file ? root : root.agents?.[key];
    if (!agent)
      throw new LevError(
        'agent-unknown',
        `The run's catalog holds no blueprint ${key}; start the run again from a blueprint that names it.`,
      );
    bp = agent;
  }
  if (req.output) bp = withLaunchOutput(bp, req.output);
  else if ('hash' in req.blueprint) return { blueprint: bp, hash: req.blueprint.hash };
  return { blueprint: bp, hash: await store.putBlueprint(bp) };
}

export interface FanOutReportRequest {
  runId: string;
  blueprintHash: string;
  stage: string;
  items: ReportItem[];
  /** Tokens each item's section may take. */
  share: number;
  /** False for a shard's part: the sections only, without the header. */
  header?: boolean;
}

/**
 * The merged report: a header counting successes and failures, then one
 * section per item in item order, each cut to its share; a cut section says
 * so, and the worker's own run still holds all of it.
 */
export async function fanOutReport(
  store: RunStore,
  req: FanOutReportRequest,
): Promise<{ content: Content; tokens: number }> {
  const encoding = await reportEncoding(store, req);
  if (req.items.length === 0)
    return { content: EMPTY_FAN_OUT_REPORT, tokens: countTokens(EMPTY_FAN_OUT_REPORT, encoding) };
  const sections: string[] = req.header === false ? [] : [reportHeader(reportCounts(req.items))];
  for (const item of req.items) {
    const text = (await fullText(store.blobs, item.text)).trim();
    const body =
      countTokens(text, encoding) > req.share
        ? cutToTokens(
            text,
            req.share,
            encoding,
            cutMarker(
              `each worker has ${req.share} tokens of this report; worker ${item.id}'s run holds its whole answer`,
            ),
          ).text
        : text;
    sections.push(`${sectionHeading(item)}\n${body || '(no text)'}`);
  }
  const report = sections.join('\n\n');
  return { content: await toContent(store.blobs, report), tokens: countTokens(report, encoding) };
}

export interface FanOutJoinRequest {
  runId: string;
  blueprintHash: string;
  stage: string;
  counts: ReportCounts;
  /** The shards' parts, in item order. */
  parts: Content[];
}

/** The report of a sharded fan-out: the header over all shards, then each shard's part. */
export async function fanOutJoin(
  store: RunStore,
  req: FanOutJoinRequest,
): Promise<{ content: Content; tokens: number }> {
  const encoding = await reportEncoding(store, req);
  const parts = await Promise.all(req.parts.map((p) => fullText(store.blobs, p)));
  const report = [reportHeader(req.counts), ...parts.filter((p) => p !== '')].join('\n\n');
  return { content: await toContent(store.blobs, report), tokens: countTokens(report, encoding) };
}

/** The encoding of the model that reads the report. */
async function reportEncoding(store: RunStore, req: { blueprintHash: string; stage: string }) {
  const bp = await store.blueprint(req.blueprintHash);
  const model = chooseModel(bp, req.stage, [], store.config.env);
  return encodingFor(model, lookupModel(bp.models, model));
}
