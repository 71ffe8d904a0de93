/**
 * One region table -> a RegionDef with every default applied (docs/reference/regions.md#common-keys and
 * docs/reference/regions.md#per-kind-keys). A stage re-declaration passes the global definition as `base`: the
 * stage's keys override it and the rest is inherited.
 */

import {
  type Admission,
  type Placement,
  REGION_KINDS,
  type RegionDef,
  type RegionKind,
  type SeedSpec,
  type Volatility,
  type WindowStrategy,
} from '../shapes/frozen-blueprint.js';
import { parsePercent } from './budget.js';
import { isTable, TableReader } from './fields.js';
import { describeValue, didYouMean, Findings, type KeyPath } from './findings.js';
import { parseSeed } from './seeds.js';
import { defaultVolatility, lowWaterFor } from './volatility.js';

const COMMON_KEYS = [
  'kind',
  'budget',
  'max_tokens',
  'min_tokens',
  'admission',
  'volatility',
  'placement',
  'summarizable',
  'required',
  'required_message',
  'description',
  'describe_in_prompt',
  'seed',
] as const;

const KIND_KEYS: Record<RegionKind, readonly string[]> = {
  pinned: [],
  temporary: [],
  clearable: [],
  checklist: [],
  sliding_window: ['max_items', 'strategy', 'overflow', 'compact_count'],
  compacting: ['compact_at', 'threshold_tokens'],
  compact_history: ['source_region'],
  hashmap: ['max_entries'],
  custom: ['script', 'persistent'],
};

const STRATEGY_KEYS: Record<WindowStrategy, readonly string[]> = {
  per_item: ['max_items', 'strategy'],
  bulk: ['max_items', 'strategy', 'overflow'],
  compact: ['max_items', 'strategy', 'compact_count'],
};

const PERCENT_RULES = {
  'no-percent': 'must end in "%"',
  'not-a-number': 'must be a plain number before the "%"',
  'out-of-range': 'must be greater than 0% and at most 100%',
} as const;

/** The parsed region plus whether its kind could be read (cross-checks skip unknown kinds). */
export interface ParsedRegion {
  def: RegionDef;
  kindKnown: boolean;
}

function percentKey(
  reader: TableReader,
  key: 'budget' | 'compact_at',
  region: string,
): { percent: number; text: string } | undefined {
  if (!reader.has(key)) return undefined;
  const value = reader.raw(key);
  const code = key === 'budget' ? 'bad-budget' : 'bad-compact-at';
  if (typeof value !== 'string') {
    const n = typeof value === 'number' ? value : 20;
    reader.findings.add(
      code,
      `\`${key}\` of region "${region}" must be a percentage string, not ${describeValue(value)}; write ${key} = "${n}%" or use max_tokens for an absolute size.`,
      reader.at(key),
    );
    return undefined;
  }
  const parsed = parsePercent(value);
  if (!parsed.ok) {
    reader.findings.add(
      code,
      `\`${key}\` of region "${region}" is ${describeValue(value)}, but it ${PERCENT_RULES[parsed.reason]}; write for example ${key} = "${key === 'budget' ? 20 : 80}%".`,
      reader.at(key),
    );
    return undefined;
  }
  return { percent: parsed.percent, text: value };
}

function readKind(reader: TableReader, base: RegionDef | undefined): { kind: RegionKind; known: boolean } {
  if (!reader.has('kind')) return { kind: base?.kind ?? 'temporary', known: true };
  const kind = reader.enumeration('kind', REGION_KINDS, 'unknown-kind', { hash_map: 'hashmap' });
  return kind === undefined ? { kind: base?.kind ?? 'temporary', known: false } : { kind, known: true };
}

/** True when a stage's `seed` value reads as exactly the global region's seed. */
function sameSeed(value: unknown, global: SeedSpec | undefined, path: KeyPath): boolean {
  if (!global) return false;
  const parsed = parseSeed(value, path, new Findings(''));
  return parsed !== undefined && JSON.stringify(parsed) === JSON.stringify(global);
}

/**
 * `inStage` marks a stage layout: `seed` is refused there. A bare `task`
 * region in the global layout is seeded with the caller's task.
 */
export function parseRegion(
  name: string,
  value: unknown,
  path: KeyPath,
  findings: Findings,
  opts: { inStage: boolean; base?: RegionDef },
): ParsedRegion | undefined {
  if (!isTable(value)) {
    findings.add(
      'bad-value',
      `Region "${name}" must be a table such as { kind = "temporary", max_tokens = 2000 }, not ${describeValue(value)}.`,
      path,
    );
    return undefined;
  }
  const r = new TableReader(value, path, findings);
  const base = opts.base;
  const { kind, known } = readKind(r, base);

  if (base && known && kind !== base.kind) {
    findings.add(
      'region-kind-changed',
      `A stage may not change region "${name}" from ${base.kind} to ${kind}; drop \`kind\` here or give the region another name.`,
      r.at('kind'),
    );
  }

  // Keys the kind (and, for windows, the strategy) does not read have no effect.
  const strategy =
    kind === 'sliding_window'
      ? (r.enumeration('strategy', ['per_item', 'bulk', 'compact'], 'unknown-strategy') ??
        (r.has('strategy') ? undefined : (base?.strategy ?? 'per_item')))
      : undefined;
  if (known) {
    const kindKeys = kind === 'sliding_window' && strategy ? STRATEGY_KEYS[strategy] : KIND_KEYS[kind];
    for (const key of Object.keys(value)) {
      if ((COMMON_KEYS as readonly string[]).includes(key) || kindKeys.includes(key)) continue;
      if (kind === 'sliding_window' && !strategy && KIND_KEYS.sliding_window.includes(key)) continue;
      const owner = REGION_KINDS.find((k) => KIND_KEYS[k].includes(key));
      const why =
        owner === 'sliding_window' && kind === 'sliding_window'
          ? `is read only with strategy = "${key === 'overflow' ? 'bulk' : 'compact'}"`
          : owner
            ? `belongs to ${owner} regions`
            : `is not a region key${didYouMean(key, [...COMMON_KEYS, ...kindKeys])}`;
      findings.add(
        'unknown-region-key',
        `Key "${key}" on ${kind} region "${name}" ${why}, so it has no effect; remove it.`,
        r.at(key),
      );
    }
  }

  const budget = percentKey(r, 'budget', name);
  const def: RegionDef = {
    name,
    kind,
    admission:
      r.enumeration<Admission>('admission', ['evict', 'reject'], 'unknown-admission') ?? base?.admission ?? 'evict',
    volatility:
      r.enumeration<Volatility>('volatility', ['stable', 'grows', 'rewritten'], 'unknown-volatility') ??
      base?.volatility ??
      defaultVolatility(kind),
    volatilityDeclared: r.has('volatility') || (base?.volatilityDeclared ?? false),
    summarizable: r.boolean('summarizable') ?? base?.summarizable ?? true,
    required: r.boolean('required') ?? base?.required ?? false,
    describeInPrompt: r.boolean('describe_in_prompt') ?? base?.describeInPrompt ?? false,
  };
  if (kind === 'sliding_window' && r.has('placement')) {
    findings.add(
      'unknown-region-key',
      `Key "placement" on sliding_window region "${name}" has no effect: a sliding window renders as messages, in the conversation's place; remove it.`,
      r.at('placement'),
    );
  } else {
    const placement =
      r.enumeration<Placement>('placement', ['system', 'tail'], 'unknown-placement') ??
      (r.has('placement') ? undefined : base?.placement);
    if (placement !== undefined) def.placement = placement;
  }
  const budgetPercent = budget?.percent ?? (r.has('budget') ? undefined : base?.budgetPercent);
  if (budgetPercent !== undefined) {
    def.budgetPercent = budgetPercent;
    def.budgetText = budget?.text ?? base?.budgetText;
  }
  const maxTokens = r.integer('max_tokens', 1) ?? base?.maxTokens;
  if (maxTokens !== undefined) def.maxTokens = maxTokens;
  const minTokens = r.integer('min_tokens', 1) ?? base?.minTokens;
  if (minTokens !== undefined) {
    if (budgetPercent === undefined && !r.has('budget')) {
      findings.add(
        'bad-size',
        `\`min_tokens\` on region "${name}" only floors a percentage budget; add budget = "N%" or use max_tokens alone.`,
        r.at('min_tokens'),
      );
    }
    def.minTokens = minTokens;
  }
  const requiredMessage = r.string('required_message') ?? base?.requiredMessage;
  if (requiredMessage !== undefined) def.requiredMessage = requiredMessage;
  const description = r.string('description')?.trim() ?? base?.description;
  if (description) def.description = description;

  if (r.has('seed')) {
    if (opts.inStage) {
      const repeated = sameSeed(r.raw('seed'), base?.seed, r.at('seed'));
      if (repeated && base?.seed) def.seed = base.seed;
      findings.add(
        repeated ? 'seed-repeated-in-stage' : 'seed-in-stage-layout',
        repeated
          ? `Region "${name}" repeats its global \`seed\` here; seeds run once at spawn from [context.regions.${name}], so this line changes nothing and can go.`
          : base?.seed
            ? `Region "${name}" declares a different \`seed\` in a stage layout; seeds run once at spawn from [context.regions.${name}], so remove it here or change the global one.`
            : `Region "${name}" declares \`seed\` in a stage layout; seeds run once at spawn, so move it to [context.regions.${name}].`,
        r.at('seed'),
      );
    } else {
      const seed = parseSeed(r.raw('seed'), r.at('seed'), findings);
      if (seed) def.seed = seed;
      else def.seedIgnored = true;
    }
  } else if (!opts.inStage && name === 'task') {
    def.seed = { form: 'task_input', refresh: 'once' };
  }

  switch (kind) {
    case 'sliding_window': {
      def.maxItems = r.integer('max_items', 1) ?? base?.maxItems ?? 10;
      def.strategy = strategy ?? 'per_item';
      if (def.strategy === 'bulk') def.overflow = r.integer('overflow', 1) ?? base?.overflow ?? 10;
      if (def.strategy === 'compact') def.compactCount = r.integer('compact_count', 2) ?? base?.compactCount ?? 10;
      break;
    }
    case 'compacting': {
      const at = percentKey(r, 'compact_at', name);
      const compactAt = at ? at.percent / 100 : r.has('compact_at') ? undefined : base?.compactAt;
      if (compactAt !== undefined) def.compactAt = compactAt;
      const threshold = r.integer('threshold_tokens', 1) ?? base?.thresholdTokens;
      if (threshold !== undefined) def.thresholdTokens = threshold;
      break;
    }
    case 'compact_history': {
      const source = r.string('source_region', 'source-region-invalid') ?? base?.sourceRegion;
      if (source !== undefined) def.sourceRegion = source;
      else if (!r.has('source_region')) {
        findings.add(
          'source-region-invalid',
          `compact_history region "${name}" needs source_region = "<region>" naming the region whose summaries it keeps.`,
          path,
        );
      }
      break;
    }
    case 'hashmap': {
      const maxEntries = r.integer('max_entries', 1) ?? base?.maxEntries;
      if (maxEntries !== undefined) def.maxEntries = maxEntries;
      break;
    }
    case 'custom': {
      const script = r.string('script', 'custom-script-invalid') ?? base?.script;
      if (script !== undefined) def.script = script;
      else if (!r.has('script')) {
        findings.add(
          'custom-script-invalid',
          `custom region "${name}" needs script = "<file>.rhai", a path inside the blueprint directory.`,
          path,
        );
      }
      def.persistent = r.boolean('persistent') ?? base?.persistent ?? false;
      break;
    }
    default:
      break;
  }

  if (!def.summarizable && (kind === 'compacting' || (kind === 'sliding_window' && def.strategy === 'compact'))) {
    const what = kind === 'compacting' ? 'a compacting region' : 'a strategy = "compact" window';
    findings.add(
      'summarizable-not-allowed',
      `Region "${name}" is ${what}, which works by summarising, so summarizable = false contradicts it; remove the key or pick another kind.`,
      r.has('summarizable') ? r.at('summarizable') : path,
    );
  }
  const shedTo = lowWaterFor(def);
  if (shedTo !== undefined) def.shedTo = shedTo;
  return { def, kindKnown: known };
}
