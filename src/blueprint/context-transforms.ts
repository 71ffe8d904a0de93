/**
 * `[[transforms]]` (docs/reference/sub-agents.md#context-transforms): the
 * original's region mappings between blueprints, read and checked at load
 * and resolved there into each blueprint's `handoffs`, so a run starting an
 * agent finds what to hand it without reading another blueprint. As in the
 * original, a transform applies when a parent starts a child of another
 * name, is looked up in the parent's table and then in the child's, and is
 * matched by both blueprints' `[agent] name`.
 */
import {
  type Blueprint,
  CONTENT_TRANSFORMS,
  type ContentTransform,
  type RegionMapping,
} from '../shapes/frozen-blueprint.js';
import { isTable, TableReader } from './fields.js';
import type { Findings, KeyPath } from './findings.js';
import { ALWAYS_VISIBLE, stageLayout } from './stage-layouts.js';

/** One `[[transforms]]` entry as written, with where it was written for findings. */
export interface DeclaredTransform {
  from: string;
  to: string;
  mappings: RegionMapping[];
  at: KeyPath;
}

/** A blueprint's name and its `[[transforms]]`, as the catalog keeps them while it loads. */
export interface TransformTable {
  name: string;
  transforms: DeclaredTransform[];
}

const TRANSFORM_KEYS = ['from_blueprint', 'to_blueprint', 'mappings'] as const;
const MAPPING_KEYS = ['from_region', 'to_region', 'transform', 'fields'] as const;

/** Reads `[[transforms]]`; a malformed entry is reported and left out. */
export function readTransforms(root: TableReader): DeclaredTransform[] {
  const list = root.raw('transforms');
  if (list === undefined) return [];
  if (!Array.isArray(list)) {
    root.findings.add(
      'bad-value',
      '`transforms` must be an array of tables, written [[transforms]] with from_blueprint, to_blueprint and mappings.',
      root.at('transforms'),
    );
    return [];
  }
  const declared: DeclaredTransform[] = [];
  list.forEach((entry, i) => {
    const at = [...root.at('transforms'), i];
    if (!isTable(entry)) {
      root.findings.add('bad-value', `Entry ${i + 1} of [[transforms]] must be a table.`, at);
      return;
    }
    const t = new TableReader(entry, at, root.findings);
    t.unknownKeys(TRANSFORM_KEYS, 'unknown-key', `Entry ${i + 1} of [[transforms]]`);
    const from = t.string('from_blueprint') ?? '';
    const to = t.string('to_blueprint') ?? '';
    const raw = t.raw('mappings');
    if (raw !== undefined && !Array.isArray(raw)) {
      root.findings.add(
        'bad-value',
        '`mappings` must be an array of tables ([[transforms.mappings]]).',
        t.at('mappings'),
      );
      return;
    }
    const mappings: RegionMapping[] = [];
    (raw ?? []).forEach((m: unknown, j: number) => {
      if (!isTable(m)) return;
      const mt = new TableReader(m, [...t.at('mappings'), j], root.findings);
      mt.unknownKeys(MAPPING_KEYS, 'unknown-key', `Mapping ${j + 1} of [[transforms]] entry ${i + 1}`);
      const mapping: RegionMapping = {
        from: mt.string('from_region') ?? '',
        to: mt.string('to_region') ?? '',
        // The original copies the text as it is when `transform` is left out.
        transform: mt.enumeration<ContentTransform>('transform', CONTENT_TRANSFORMS, 'bad-value') ?? 'direct',
      };
      const fields = mt.stringArray('fields');
      if (mapping.transform === 'extract') mapping.fields = fields ?? [];
      mappings.push(mapping);
    });
    declared.push({ from, to, mappings, at });
  });
  return declared;
}

/**
 * The mappings that apply when `parent` starts `child`: the first entry of
 * the parent's table, then of the child's, that goes from the parent's name
 * to the child's and maps something; none between blueprints of one name.
 */
export function matchTransform(parent: TransformTable, child: TransformTable): RegionMapping[] | undefined {
  if (parent.name === child.name) return undefined;
  for (const table of [parent, child]) {
    const found = table.transforms.find((t) => t.from === parent.name && t.to === child.name && t.mappings.length > 0);
    if (found) return found.mappings;
  }
  return undefined;
}

/** Every region any layout of `bp` declares, the runtime's own included. */
export function regionNames(bp: Blueprint): Set<string> {
  const names = new Set<string>([...ALWAYS_VISIBLE, ...bp.regions.map((r) => r.name)]);
  for (const stage of bp.stages) for (const r of stageLayout(bp, stage)) names.add(r.name);
  return names;
}

/**
 * Checks a blueprint's own `[[transforms]]`: an entry that names it at
 * neither end (or at both) never applies; a region at its own end must be
 * one of `own`; a region at the other end must be one of that blueprint's
 * when it is among `others` (the blueprints this one starts, by name).
 */
export function checkTransforms(
  table: TransformTable,
  own: (region: string) => boolean,
  others: ReadonlyMap<string, Set<string>>,
  findings: Findings,
): void {
  for (const t of table.transforms) {
    if ((t.from !== table.name && t.to !== table.name) || t.from === t.to) {
      findings.add(
        'transform-never-applies',
        `This [[transforms]] entry goes from "${t.from}" to "${t.to}", but a transform applies only when "${table.name}" starts another blueprint or is started by one; set from_blueprint or to_blueprint to "${table.name}" and the other to the other blueprint's [agent] name.`,
        t.at,
      );
      continue;
    }
    t.mappings.forEach((m, j) => {
      const at = [...t.at, 'mappings', j];
      const ends: [string, string, 'from_region' | 'to_region'][] = [
        [t.from, m.from, 'from_region'],
        [t.to, m.to, 'to_region'],
      ];
      for (const [blueprint, region, key] of ends) {
        const known = blueprint === table.name ? own(region) : (others.get(blueprint)?.has(region) ?? true);
        if (known) continue;
        findings.add(
          'transform-region-unknown',
          `${key} "${region}" is not a region of "${blueprint}"; name a region its [context.regions] or a stage's layout declares.`,
          [...at, key],
        );
      }
    });
  }
}
