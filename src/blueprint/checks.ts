/**
 * Hard errors that need the whole blueprint: region references, stage
 * prompts, routing visibility, edges, gates, transforms and the
 * working-space check (docs/reference/validation.md#errors).
 */

import { type Blueprint, type RegionDef, STAGE_INSTRUCTIONS, type StageDef } from '../shapes/frozen-blueprint.js';
import { isFixedRegion, isProtected } from '../shapes/region-kinds.js';
import { resolveBudget, workingSpaceShortfall } from './budget.js';
import type { Findings, KeyPath } from './findings.js';
import { ALWAYS_VISIBLE, stageLayout, stageWindow } from './stage-layouts.js';
import type { RegionRef } from './stages.js';

export interface CheckInput {
  bp: Blueprint;
  findings: Findings;
  /** Every region any layout declares, by name: global definitions first, then stage-only ones. */
  catalogue: Map<string, RegionDef>;
  /** Regions whose kind could not be read; checks that depend on the kind skip them. */
  unknownKinds: Set<string>;
  routingRefs: Map<string, RegionRef[]>;
  windowOverride?: number;
}

function regionPath(bp: Blueprint, name: string): KeyPath {
  if (bp.regions.some((r) => r.name === name)) return ['context', 'regions', name];
  const stage = bp.stages.find((s) => s.regions?.some((r) => r.name === name));
  return stage ? ['stages', stage.name, 'context', 'regions', name] : ['context', 'regions'];
}

function checkSourceRegions({ bp, findings, catalogue, unknownKinds }: CheckInput): void {
  const claimedBy = new Map<string, string>();
  for (const def of catalogue.values()) {
    if (def.kind !== 'compact_history' || def.sourceRegion === undefined) continue;
    const at = [...regionPath(bp, def.name), 'source_region'];
    const source = catalogue.get(def.sourceRegion);
    if (def.sourceRegion === def.name) {
      findings.add(
        'source-region-invalid',
        `compact_history "${def.name}" names itself as source_region; name the region whose folds it should keep, such as "conversation".`,
        at,
      );
    } else if (!source) {
      findings.add(
        'source-region-invalid',
        `source_region "${def.sourceRegion}" of "${def.name}" is not a region; declare it in [context.regions] or name an existing region.`,
        at,
      );
    } else if (unknownKinds.has(source.name)) {
      // Its kind is already an error; anything said about it here would be a guess.
    } else if (source.kind === 'compact_history') {
      findings.add(
        'source-region-invalid',
        `source_region of "${def.name}" names "${source.name}", another compact_history; name the region that is folded instead.`,
        at,
      );
    } else if (claimedBy.has(source.name)) {
      findings.add(
        'source-region-invalid',
        `"${source.name}" already feeds compact_history "${claimedBy.get(source.name)}"; a region can feed only one history, so remove one of them.`,
        at,
      );
    } else {
      claimedBy.set(source.name, def.name);
      if (
        source.kind === 'pinned' ||
        source.kind === 'checklist' ||
        source.kind === 'hashmap' ||
        (source.kind === 'custom' && source.persistent)
      ) {
        findings.add(
          'compact-history-source-never-summarised',
          `"${def.name}" keeps summaries of "${source.name}", but a ${source.kind}${source.persistent ? ' (persistent)' : ''} region is never folded, so "${def.name}" stays empty; point it at a compacting region or a sliding window.`,
          at,
        );
      }
    }
  }
}

function checkStagePrompts({ bp, findings }: CheckInput): void {
  const hasInstructions = bp.regions.some((r) => r.name === STAGE_INSTRUCTIONS);
  for (const stage of bp.stages) {
    if (stage.systemPrompt === undefined || hasInstructions) continue;
    const home = stageLayout(bp, stage).find((r) => r.kind === 'pinned' && r.name !== 'final_output');
    if (!home) {
      findings.add(
        'stage-prompt-no-region',
        `Stage "${stage.name}" has a system_prompt but sees no pinned region to hold it; declare stage_instructions = { kind = "pinned", budget = "3%" } in [context.regions].`,
        ['stages', stage.name, 'system_prompt'],
      );
    }
  }
}

function checkRouting({ bp, findings, catalogue, routingRefs }: CheckInput): void {
  for (const stage of bp.stages) {
    const visible = new Set(stageLayout(bp, stage).map((r) => r.name));
    for (const ref of routingRefs.get(stage.name) ?? []) {
      if (visible.has(ref.region)) continue;
      const fix = catalogue.has(ref.region)
        ? `add ${ref.region} to [stages.${stage.name}.context.regions] or route to a region the stage carries`
        : `declare "${ref.region}" in [context.regions] or route to a region the stage carries`;
      findings.add(
        'routing-region-not-visible',
        `Stage "${stage.name}" routes tool output to "${ref.region}", which it cannot see; ${fix}.`,
        ref.path,
      );
    }
  }
}

function checkEdges({ bp, findings, catalogue, unknownKinds }: CheckInput): void {
  const stageNames = new Set(bp.stages.map((s) => s.name));
  const known = (name: string) => catalogue.has(name) || (ALWAYS_VISIBLE as readonly string[]).includes(name);
  for (const stage of bp.stages) {
    const visible = new Set(stageLayout(bp, stage).map((r) => r.name));
    for (const edge of stage.transitions) {
      const at = ['stages', stage.name, 'transitions', edge.target];
      if (!stageNames.has(edge.target)) {
        findings.add(
          'unknown-stage',
          `Stage "${stage.name}" has a transition to "${edge.target}", which is not a stage; declare [stages.${edge.target}] or fix the name (stages: ${[...stageNames].join(', ')}).`,
          at,
        );
      }
      const gate = edge.gate;
      if (gate) {
        const refs: [string, string][] = [
          ...(gate.requireRegions ?? []).map((r): [string, string] => [r, 'require_regions']),
          ...(gate.requireRegionUpdated
            ? [[gate.requireRegionUpdated, 'require_region_updated'] as [string, string]]
            : []),
          ...(gate.requireNoOpenItems ? [[gate.requireNoOpenItems, 'require_no_open_items'] as [string, string]] : []),
          ...(gate.region ? [[gate.region, 'region'] as [string, string]] : []),
        ];
        for (const [region, key] of refs) {
          const keyAt = [...at, 'gate', key];
          if (!known(region)) {
            findings.add(
              'gate-region-unknown',
              `The gate on ${stage.name} -> ${edge.target} names region "${region}", which no layout declares; declare it in [context.regions] or fix the name.`,
              keyAt,
            );
          } else if (!visible.has(region)) {
            findings.add(
              'gate-region-not-visible',
              `The gate on ${stage.name} -> ${edge.target} checks "${region}", which stage "${stage.name}" does not carry, so the agent cannot act on it; add it to [stages.${stage.name}.context.regions].`,
              keyAt,
            );
          }
        }
        const checklist = gate.requireNoOpenItems === undefined ? undefined : catalogue.get(gate.requireNoOpenItems);
        if (checklist && !unknownKinds.has(checklist.name) && checklist.kind !== 'checklist') {
          findings.add(
            'gate-not-checklist',
            `require_no_open_items names "${checklist.name}", a ${checklist.kind} region, which has no items; point it at a kind = "checklist" region.`,
            [...at, 'gate', 'require_no_open_items'],
          );
        }
      }
      if (edge.transform === 'custom' && edge.transformConfig)
        checkCustomTransform(
          stage,
          edge.target,
          edge.transformConfig,
          [...at, 'transform_config'],
          catalogue,
          unknownKinds,
          known,
          findings,
        );
    }
  }
}

function checkCustomTransform(
  stage: StageDef,
  target: string,
  config: NonNullable<StageDef['transitions'][number]['transformConfig']>,
  at: KeyPath,
  catalogue: Map<string, RegionDef>,
  unknownKinds: Set<string>,
  known: (name: string) => boolean,
  findings: Findings,
): void {
  const listedIn = new Map<string, string>();
  for (const list of ['carry', 'clear', 'compact'] as const) {
    for (const name of config[list] ?? []) {
      const keyAt = [...at, list];
      const edge = `${stage.name} -> ${target}`;
      if (!known(name)) {
        findings.add(
          'bad-transform-config',
          `transform_config.${list} on ${edge} names "${name}", which no layout declares; fix the name or declare the region.`,
          keyAt,
        );
        continue;
      }
      const previous = listedIn.get(name);
      if (previous !== undefined) {
        findings.add(
          'bad-transform-config',
          `"${name}" is listed in both ${previous} and ${list} on ${edge}; keep it in one list.`,
          keyAt,
        );
        continue;
      }
      listedIn.set(name, list);
      const def = catalogue.get(name);
      if (!def || unknownKinds.has(name) || list === 'carry') continue;
      if (isProtected(def)) {
        findings.add(
          'bad-transform-config',
          `transform_config.${list} on ${edge} names "${name}", a ${def.persistent ? 'persistent ' : ''}${def.kind} region; transforms never touch pinned, checklist, compact_history or persistent custom regions, so remove it from the list.`,
          keyAt,
        );
      } else if (list === 'compact' && !def.summarizable) {
        findings.add(
          'bad-transform-config',
          `transform_config.compact on ${edge} names "${name}", which sets summarizable = false; move it to clear or carry, or make it summarizable.`,
          keyAt,
        );
      }
    }
  }
}

function checkWorkingSpace({ bp, findings, windowOverride }: CheckInput): void {
  for (const stage of bp.stages) {
    const { window, known } = stageWindow(bp, stage, windowOverride);
    if (!known) continue;
    const fixed = stageLayout(bp, stage).filter(isFixedRegion);
    const shortfall = workingSpaceShortfall(
      fixed.map((r) => resolveBudget(r, window)),
      window,
    );
    if (shortfall) {
      findings.add(
        'working-space',
        `At stage "${stage.name}" (window ${window}), fixed regions (${fixed.map((r) => r.name).join(', ')}) hold ${shortfall.fixed} tokens and leave ${shortfall.free} free, below the 8000 needed to work; shrink their budgets.`,
        ['stages', stage.name],
      );
    }
  }
}

function checkFileTracking({ bp, findings, catalogue }: CheckInput): void {
  const tracking = bp.fileTracking;
  if (!tracking) return;
  const def = catalogue.get(tracking.region);
  if (def?.kind === 'hashmap') return;
  const why = def ? `is a ${def.kind} region` : 'is not declared';
  findings.add(
    'file-tracking-region-invalid',
    `[context.file_tracking] region "${tracking.region}" ${why}; declare ${tracking.region} = { kind = "hashmap" } in [context.regions] or name a hashmap.`,
    ['context', 'file_tracking', 'region'],
  );
}

export function runChecks(input: CheckInput): void {
  checkSourceRegions(input);
  checkStagePrompts(input);
  checkRouting(input);
  checkEdges(input);
  checkFileTracking(input);
  checkWorkingSpace(input);
}
