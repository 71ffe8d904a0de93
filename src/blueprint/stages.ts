/**
 * `[stages.X]` tables: stage keys, per-stage layouts, tool routing, tool
 * permissions and transitions with their gates (docs/reference/routing.md#routing-table and docs/reference/stages.md).
 * Checks that need the whole blueprint (visibility, region kinds) live in checks.ts.
 */

import type {
  EdgeCondition,
  EdgeDef,
  EdgeTransform,
  GateDef,
  InteractionPoint,
  PermissionMode,
  RegionDef,
  RoutingOverride,
  StageDef,
  StageMode,
  ToolPermissions,
  ToolRouting,
  TransformConfig,
} from '../shapes/frozen-blueprint.js';
import type { ModelTable } from '../shapes/model-info.js';
import { canonicalTool, FAN_OUT } from '../tools/builtin-names.js';
import { FAN_OUT_KEYS, type ParsedFanOut, parseFanOut, reportUnusedFanOutKeys } from './fan-out.js';
import { isTable, TableReader } from './fields.js';
import { describeValue, type Findings, type KeyPath } from './findings.js';
import { parseModelValue } from './model-chain.js';
import { parseOutputSpec } from './output-spec.js';
import { parsePoints } from './points.js';
import { type ParsedRegion, parseRegion } from './regions.js';
import { checkParameterProviders, parseModelParameters } from './stage-parameters.js';
import { reportUnbuiltKeys, UNBUILT_STAGE_KEYS } from './unsupported.js';

/** `max_iterations` of a stage that sets none (docs/reference/blueprint.md#stages). */
export const DEFAULT_MAX_ITERATIONS = 50;

export const STAGE_KEYS = [
  'model',
  'system_prompt',
  'available_tools',
  'available_connectors',
  'max_iterations',
  'max_revisits',
  'allow_complete',
  'transition_prompt',
  'context',
  'tool_routing',
  'tool_permissions',
  'transitions',
  'mode',
  'description',
  'output',
  'require_output',
  'allow_as_worker',
  'requires_children',
  ...FAN_OUT_KEYS,
  'accepts_messages',
  'allow_blocking_tools',
  'interaction_points',
  'required_tools',
  /** Read with `[agent.nudge]` once every stage is parsed (./nudge.ts). */
  'nudge',
  /** Read and compiled once every stage is parsed (./hook-scripts.ts). */
  'hooks',
] as const;
const MODES = ['autonomous', 'output', 'interactive', 'interactive_points', 'fan_out'] as const;
const ROUTING_KEYS = [
  'default_region',
  'max_result_tokens',
  'overrides',
  'max_result_tokens_per_tool',
  'persist',
] as const;
const EDGE_KEYS = [
  'hint',
  'condition',
  'transform',
  'transform_config',
  'gate',
  'stuck_after_iterations',
  'stuck_after_minutes',
  'stuck_after_same_file_edits',
  'stuck_after_tool_calls',
] as const;
const GATE_KEYS = [
  'require_modifications',
  'require_regions',
  'require_region_updated',
  'require_no_open_items',
  'message',
  'region',
  'tools',
  'max_attempts',
] as const;
const TRANSFORM_CONFIG_KEYS = ['carry', 'clear', 'compact', 'compact_prompt'] as const;
const CONDITIONS: readonly EdgeCondition[] = ['always', 'llm_choice', 'error', 'max_iterations', 'stuck', 'dead_end'];
const TRANSFORMS: readonly EdgeTransform[] = ['direct', 'clear', 'compact', 'custom'];
const STUCK_KEYS = [
  ['stuck_after_iterations', 'stuckAfterIterations'],
  ['stuck_after_minutes', 'stuckAfterMinutes'],
  ['stuck_after_same_file_edits', 'stuckAfterSameFileEdits'],
  ['stuck_after_tool_calls', 'stuckAfterToolCalls'],
] as const;

/** A region name written somewhere in a stage, kept with where it was written. */
export interface RegionRef {
  region: string;
  path: KeyPath;
}

export interface ParsedStage {
  def: StageDef;
  /** Stage layout as parsed, with whether each kind was readable. */
  layout?: ParsedRegion[];
  /** `default_region` and override targets, for the visibility check. */
  routingRefs: RegionRef[];
}

export function parsePermissions(reader: TableReader): ToolPermissions {
  const permissions: ToolPermissions = { tools: {} };
  for (const key of Object.keys(reader.table)) {
    const mode = reader.enumeration<PermissionMode>(key, ['allow', 'deny', 'ask'], 'bad-permission');
    if (mode === undefined) continue;
    if (key === 'default') permissions.default = mode;
    else permissions.tools[canonicalTool(key)] = mode;
  }
  return permissions;
}

function parseRouting(r: TableReader, stage: string, refs: RegionRef[]): ToolRouting {
  r.unknownKeys(ROUTING_KEYS, 'unknown-key', `[stages.${stage}.tool_routing]`);
  const routing: ToolRouting = {
    defaultRegion: r.string('default_region') ?? 'tool_results',
    overrides: {},
    maxResultTokensPerTool: {},
    persist: r.boolean('persist') ?? true,
  };
  if (r.has('default_region') && typeof r.raw('default_region') === 'string')
    refs.push({ region: routing.defaultRegion, path: r.at('default_region') });
  const cap = r.integer('max_result_tokens', 0, 'bad-routing');
  if (cap !== undefined) routing.maxResultTokens = cap;

  const seen = new Map<string, string>();
  const overrides = r.table_('overrides', '{ read_file = "codebase" }');
  for (const [tool, value] of Object.entries(overrides?.table ?? {})) {
    const at = [...(overrides?.path ?? []), tool];
    const canonical = canonicalTool(tool);
    const clash = seen.get(canonical);
    if (clash !== undefined) {
      r.findings.add(
        'bad-routing',
        `overrides "${clash}" and "${tool}" name the same tool ${canonical}; keep one of them.`,
        at,
      );
      continue;
    }
    seen.set(canonical, tool);
    if (typeof value === 'string') {
      routing.overrides[canonical] = { region: value };
      refs.push({ region: value, path: at });
      continue;
    }
    if (!isTable(value) || Object.keys(value).length === 0) {
      r.findings.add(
        'bad-routing',
        `Override "${tool}" is ${describeValue(value)}; write a region name (${tool} = "scratch") or a table such as { region = "codebase", max_result_tokens = 20000 }.`,
        at,
      );
      continue;
    }
    const o = new TableReader(value, at, r.findings);
    o.unknownKeys(['region', 'max_result_tokens'], 'unknown-key', `Override "${tool}"`);
    const override: RoutingOverride = {};
    const region = o.string('region', 'bad-routing');
    if (region !== undefined) {
      override.region = region;
      refs.push({ region, path: o.at('region') });
    }
    const overrideCap = o.integer('max_result_tokens', 0, 'bad-routing');
    if (overrideCap !== undefined) override.maxResultTokens = overrideCap;
    routing.overrides[canonical] = override;
  }

  const perTool = r.table_('max_result_tokens_per_tool', '{ read_file = 20000 }');
  const seenCaps = new Map<string, string>();
  for (const tool of Object.keys(perTool?.table ?? {})) {
    if (!perTool) break;
    const canonical = canonicalTool(tool);
    const clash = seenCaps.get(canonical);
    if (clash !== undefined) {
      r.findings.add(
        'bad-routing',
        `max_result_tokens_per_tool has both "${clash}" and "${tool}", which name the same tool ${canonical}; keep one.`,
        perTool.at(tool),
      );
      continue;
    }
    seenCaps.set(canonical, tool);
    if (routing.overrides[canonical]?.maxResultTokens !== undefined) {
      r.findings.add(
        'bad-routing',
        `Tool ${canonical} is capped both in overrides and in max_result_tokens_per_tool; keep one cap.`,
        perTool.at(tool),
      );
      continue;
    }
    const v = perTool.integer(tool, 0, 'bad-routing');
    if (v !== undefined) routing.maxResultTokensPerTool[canonical] = v;
  }
  return routing;
}

function parseGate(value: unknown, at: KeyPath, findings: Findings): GateDef | undefined {
  if (!isTable(value)) {
    findings.add(
      'bad-gate',
      `A gate must be a table such as { require_no_open_items = "todos" }, not ${describeValue(value)}.`,
      at,
    );
    return undefined;
  }
  const g = new TableReader(value, at, findings);
  g.unknownKeys(GATE_KEYS, 'unknown-key', 'The gate');
  const gate: GateDef = { maxAttempts: 3 };
  const requireModifications = g.boolean('require_modifications');
  if (requireModifications !== undefined) gate.requireModifications = requireModifications;
  const requireRegions = g.stringArray('require_regions');
  if (requireRegions !== undefined) gate.requireRegions = requireRegions;
  const updated = g.string('require_region_updated');
  if (updated !== undefined) gate.requireRegionUpdated = updated;
  const noOpen = g.string('require_no_open_items');
  if (noOpen !== undefined) gate.requireNoOpenItems = noOpen;
  const message = g.string('message');
  if (message !== undefined) gate.message = message;
  const region = g.string('region');
  if (region !== undefined) gate.region = region;
  const tools = g.stringArray('tools');
  if (tools !== undefined) gate.tools = tools.map(canonicalTool);
  const maxAttempts = g.integer('max_attempts', 0, 'bad-gate');
  if (maxAttempts !== undefined) gate.maxAttempts = maxAttempts;
  const hasCheck = ['require_modifications', 'require_regions', 'require_region_updated', 'require_no_open_items'].some(
    (k) => g.has(k),
  );
  if (!hasCheck) {
    findings.add(
      'bad-gate',
      'This gate has no check; add require_no_open_items, require_regions, require_region_updated or require_modifications, or remove the gate.',
      at,
    );
  }
  return gate;
}

function parseTransformConfig(value: unknown, at: KeyPath, findings: Findings): TransformConfig | undefined {
  if (!isTable(value)) {
    findings.add(
      'bad-transform-config',
      `transform_config must be a table such as { clear = ["scratch"] }, not ${describeValue(value)}.`,
      at,
    );
    return undefined;
  }
  const t = new TableReader(value, at, findings);
  t.unknownKeys(TRANSFORM_CONFIG_KEYS, 'unknown-key', 'transform_config');
  const config: TransformConfig = {};
  for (const key of ['carry', 'clear', 'compact'] as const) {
    const list = t.stringArray(key, 'bad-transform-config');
    if (list !== undefined) config[key] = list;
  }
  const prompt = t.string('compact_prompt', 'bad-transform-config');
  if (prompt !== undefined) config.compactPrompt = prompt;
  return config;
}

function parseEdge(target: string, value: unknown, at: KeyPath, findings: Findings): EdgeDef | undefined {
  if (!isTable(value)) {
    findings.add(
      'bad-value',
      `Transition to "${target}" must be a table such as { hint = "when done" }, not ${describeValue(value)}.`,
      at,
    );
    return undefined;
  }
  const e = new TableReader(value, at, findings);
  e.unknownKeys(EDGE_KEYS, 'unknown-key', `The transition to "${target}"`);
  const edge: EdgeDef = {
    target,
    condition: e.enumeration('condition', CONDITIONS, 'unknown-condition') ?? 'always',
    transform: e.enumeration('transform', TRANSFORMS, 'unknown-transform', { summarize: 'compact' }) ?? 'direct',
  };
  const hint = e.string('hint');
  if (hint !== undefined) edge.hint = hint;
  if (e.has('gate')) {
    const gate = parseGate(e.raw('gate'), e.at('gate'), findings);
    if (gate) edge.gate = gate;
  }
  if (e.has('transform_config')) {
    const config = parseTransformConfig(e.raw('transform_config'), e.at('transform_config'), findings);
    if (config) {
      edge.transformConfig = config;
      const keys = Object.keys(e.raw('transform_config') as object);
      if (edge.transform === 'compact' && keys.some((k) => k !== 'compact_prompt')) {
        findings.add(
          'bad-transform-config',
          'With transform = "compact" only compact_prompt may be set; use transform = "custom" for carry/clear/compact lists.',
          e.at('transform_config'),
        );
      } else if (edge.transform === 'direct' || edge.transform === 'clear') {
        findings.add(
          'bad-transform-config',
          `transform_config has no effect with transform = "${edge.transform}"; remove it or set transform = "custom".`,
          e.at('transform_config'),
        );
      }
    }
  }
  const isStuck = edge.condition === 'stuck';
  let positive = 0;
  for (const [key, field] of STUCK_KEYS) {
    if (!e.has(key)) continue;
    const v = e.raw(key);
    const valid =
      typeof v === 'number' && Number.isFinite(v) && v > 0 && (key === 'stuck_after_minutes' || Number.isInteger(v));
    if (!isStuck) {
      findings.add(
        'bad-stuck',
        `\`${key}\` only applies to condition = "stuck" edges; remove it or set condition = "stuck".`,
        e.at(key),
      );
    } else if (!valid) {
      findings.add(
        'bad-stuck',
        `\`${key}\` must be a number greater than 0${key === 'stuck_after_minutes' ? '' : ' (an integer)'}, not ${describeValue(v)}.`,
        e.at(key),
      );
    } else {
      edge[field] = v as number;
      positive += 1;
    }
  }
  if (isStuck && positive === 0 && !STUCK_KEYS.some(([k]) => e.has(k))) {
    findings.add(
      'bad-stuck',
      'A condition = "stuck" edge needs a threshold: set stuck_after_iterations, stuck_after_minutes, stuck_after_same_file_edits or stuck_after_tool_calls.',
      at,
    );
  }
  return edge;
}

/**
 * `mode` is a name, or the original's table form: `{ fan_out = {...} }` or
 * `{ interactive_points = [...] }`.
 */
function readMode(s: TableReader, stage: string): StageMode {
  if (!s.has('mode')) return 'autonomous';
  const raw = s.raw('mode');
  if (isTable(raw)) {
    if (Object.hasOwn(raw, 'fan_out')) return 'fan_out';
    if (Object.hasOwn(raw, 'interactive_points')) return 'interactive_points';
    s.findings.add(
      'bad-value',
      `Stage "${stage}" has a mode table without fan_out or interactive_points; write mode = "autonomous", "output", "interactive", "interactive_points" or "fan_out".`,
      s.at('mode'),
    );
    return 'autonomous';
  }
  return s.enumeration('mode', MODES, 'bad-value', { 'fan-out': 'fan_out' }) ?? 'autonomous';
}

/**
 * The interaction points of an `interactive_points` stage, from the mode
 * table and `interaction_points`; on a stage of another mode they are
 * `interaction-points-unused`.
 */
function readPoints(s: TableReader, stage: string, mode: StageMode): InteractionPoint[] | undefined {
  const modeTable = s.raw('mode');
  const sources = [
    ...(isTable(modeTable) && Object.hasOwn(modeTable, 'interactive_points')
      ? [{ raw: modeTable.interactive_points, at: [...s.at('mode'), 'interactive_points'] }]
      : []),
    ...(s.has('interaction_points') ? [{ raw: s.raw('interaction_points'), at: s.at('interaction_points') }] : []),
  ];
  if (mode === 'interactive_points') return parsePoints(sources, stage, s.findings);
  if (sources.length > 0)
    s.findings.add(
      'interaction-points-unused',
      `Stage "${stage}" declares interaction points but its mode is "${mode}", so they never ask; set mode = "interactive_points" or remove them.`,
      s.at('interaction_points'),
    );
  return undefined;
}

/** The fan-out keys of a fan-out stage; on any other stage they are reported as doing nothing. */
function readFanOut(
  s: TableReader,
  stage: string,
  mode: StageMode,
  findWorker: (query: string) => string | undefined,
): ParsedFanOut | undefined {
  if (mode !== 'fan_out') {
    reportUnusedFanOutKeys(s, stage);
    return undefined;
  }
  return parseFanOut(s, stage, findWorker);
}

/**
 * `results_region`: the merged report of the stage's `fan_out` call lands
 * there, as an override of the stage's routing (without a routing table the
 * other results still go to the conversation).
 */
function routeFanOut(def: StageDef, region: string, s: TableReader, refs: RegionRef[]): void {
  const routing: ToolRouting = def.toolRouting ?? {
    defaultRegion: 'conversation',
    overrides: {},
    maxResultTokensPerTool: {},
    persist: true,
  };
  routing.overrides[FAN_OUT] = { ...routing.overrides[FAN_OUT], region };
  def.toolRouting = routing;
  refs.push({ region, path: s.has('results_region') ? s.at('results_region') : s.at('mode') });
}

/** `globalDef(name)` gives the global definition a stage re-declaration inherits from. */
export function parseStage(
  name: string,
  value: unknown,
  findings: Findings,
  defaults: { model: string; models: ModelTable; findWorker: (query: string) => string | undefined },
  globalDef: (region: string) => RegionDef | undefined,
): ParsedStage | undefined {
  const at = ['stages', name];
  if (!isTable(value)) {
    findings.add('bad-value', `Stage "${name}" must be a table ([stages.${name}]), not ${describeValue(value)}.`, at);
    return undefined;
  }
  const s = new TableReader(value, at, findings);
  s.unknownKeys([...STAGE_KEYS, ...Object.keys(UNBUILT_STAGE_KEYS)], 'unknown-key', `Stage "${name}"`);
  reportUnbuiltKeys(s, UNBUILT_STAGE_KEYS, `Stage "${name}":`);
  s.stringArray('available_connectors');
  s.boolean('batch_tool_hint');
  s.boolean('shell_hint');
  const def: StageDef = {
    name,
    model: defaults.model,
    allowComplete: s.boolean('allow_complete') ?? false,
    transitions: [],
  };
  if (s.has('model')) {
    const chain = parseModelValue(s.raw('model'), s.at('model'), findings, defaults.models);
    if (chain?.[0] !== undefined) {
      def.model = chain[0];
      if (chain.length > 1) def.models = chain;
    }
    const params = parseModelParameters(s.raw('model'), s.at('model'), findings);
    if (params) {
      def.modelParameters = params;
      checkParameterProviders(chain ?? [def.model], params, s.at('model'), findings);
    }
  }
  const mode = readMode(s, name);
  if (mode !== 'autonomous') def.mode = mode;
  const points = readPoints(s, name, mode);
  if (points && points.length > 0) def.interactionPoints = points;
  const fan = readFanOut(s, name, mode, defaults.findWorker);
  if (fan) def.fanOut = fan.def;
  if (mode === 'fan_out' && !fan) def.mode = 'autonomous';
  const asWorker = s.boolean('allow_as_worker');
  if (asWorker) def.allowAsWorker = true;
  if (s.boolean('requires_children') === false)
    findings.add(
      'unsupported-feature',
      `Stage "${name}": requires_children = false is not built here: a stage visit always waits for the agents it started before it ends. Remove the key to silence this warning.`,
      s.at('requires_children'),
    );
  const description = s.string('description')?.trim();
  if (description) def.description = description;
  if (s.has('output')) {
    const output = parseOutputSpec(s.raw('output'), s.at('output'), findings);
    if (output) def.output = output;
  }
  const requireOutput = s.boolean('require_output');
  // On a fan-out stage the answers are owed by its workers, not by the stage.
  if (def.fanOut && requireOutput === true) def.fanOut.requireOutput = true;
  else if (mode === 'output' || requireOutput === true) def.requireOutput = true;
  const prompt = [s.string('system_prompt'), fan?.splitPrompt].filter((p) => p !== undefined && p.trim() !== '');
  if (prompt.length > 0) def.systemPrompt = prompt.join('\n\n');
  const tools = s.stringArray('available_tools');
  if (tools !== undefined) def.availableTools = [...new Set(tools.map(canonicalTool))];
  const required = s.stringArray('required_tools');
  if (required !== undefined && required.length > 0) def.requiredTools = [...new Set(required.map(canonicalTool))];
  const connectors = s.stringArray('available_connectors');
  if (connectors !== undefined && connectors.length > 0) def.availableConnectors = [...new Set(connectors)];
  // A run nobody watches stops looping: 50 inferences per visit unless the stage says otherwise, as in the original.
  def.maxIterations = s.integer('max_iterations', 1) ?? DEFAULT_MAX_ITERATIONS;
  const maxRevisits = s.integer('max_revisits', 0);
  if (maxRevisits !== undefined) def.maxRevisits = maxRevisits;
  const transitionPrompt = s.string('transition_prompt');
  if (transitionPrompt !== undefined) def.transitionPrompt = transitionPrompt;
  if (s.boolean('accepts_messages') === false) def.acceptsMessages = false;
  if (s.boolean('allow_blocking_tools') === true) def.allowBlockingTools = true;

  const parsed: ParsedStage = { def, routingRefs: [] };
  const context = s.table_('context', '{ regions = { ... } }');
  if (context) {
    context.unknownKeys(['regions'], 'unknown-key', `[stages.${name}.context]`);
    const regions = context.table_('regions', '[stages.X.context.regions]');
    if (regions) {
      parsed.layout = [];
      for (const [regionName, regionValue] of Object.entries(regions.table)) {
        const region = parseRegion(regionName, regionValue, regions.at(regionName), findings, {
          inStage: true,
          base: globalDef(regionName),
        });
        if (region) parsed.layout.push(region);
      }
      def.regions = parsed.layout.map((r) => r.def);
    }
  }
  const routing = s.table_('tool_routing', '{ default_region = "scratch" }');
  if (routing) def.toolRouting = parseRouting(routing, name, parsed.routingRefs);
  if (def.fanOut?.resultsRegion) routeFanOut(def, def.fanOut.resultsRegion, s, parsed.routingRefs);
  const permissions = s.table_('tool_permissions', '{ shell = "ask" }');
  if (permissions) def.toolPermissions = parsePermissions(permissions);
  const transitions = s.table_('transitions', '[stages.X.transitions.Y]');
  for (const [target, edgeValue] of Object.entries(transitions?.table ?? {})) {
    const edge = parseEdge(target, edgeValue, ['stages', name, 'transitions', target], findings);
    if (edge) def.transitions.push(edge);
  }
  return parsed;
}
