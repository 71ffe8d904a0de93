/**
 * Every key of the original Leviath's blueprint schema
 * (test/fixtures/leviath-rs/blueprint.schema.json, MIT, see the LICENSE
 * beside it), as a dotted path with `*` for a name the user picks, and a
 * blueprint that sets it to a value the schema allows.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { parse, stringify } from 'smol-toml';
import { FAN_OUT_KEYS } from '../../src/blueprint/fan-out.js';
import { STAGE_HOOK_EVENTS } from '../../src/shapes/hook-events.js';

type Schema = {
  $ref?: string;
  type?: string;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  additionalProperties?: boolean | Schema;
  items?: Schema;
  oneOf?: Schema[];
  minimum?: number;
};

const root = JSON.parse(readFileSync('test/fixtures/leviath-rs/blueprint.schema.json', 'utf8')) as Schema & {
  $defs: Record<string, Schema>;
};

function deref(s: Schema): Schema {
  return s.$ref ? deref(root.$defs[s.$ref.replace('#/$defs/', '')] as Schema) : s;
}

/** Every key path of the schema, depth first, in the schema's order. */
export function schemaKeyPaths(): string[] {
  const out: string[] = [];
  const walk = (s: Schema, prefix: string, seen: Set<Schema>) => {
    const d = deref(s);
    if (seen.has(d)) return;
    const next = new Set(seen).add(d);
    for (const [key, child] of Object.entries(d.properties ?? {})) {
      const path = prefix ? `${prefix}.${key}` : key;
      out.push(path);
      walk(child, path, next);
    }
    if (typeof d.additionalProperties === 'object') walk(d.additionalProperties, `${prefix}.*`, next);
    for (const alt of d.oneOf ?? []) walk(alt, prefix, next);
    if (d.items) walk(d.items, `${prefix}[]`, next);
  };
  walk(root, '', new Set());
  return [...new Set(out)];
}

/** Values the schema allows but that need context here (a stage to name, a kind to belong to). */
const SAMPLES: Record<string, unknown> = {
  'agent.entry_stage': 'work',
  'stages.*.mode': 'interactive_points',
  'stages.*.worker_stage': 'work',
  'stages.*.merge_stage': 'work',
  'stages.*.results_region': 'conversation',
  'stages.*.worker_agent': 'worker',
  'stages.*.worker_query': 'worker',
  'stages.*.available_connectors': ['fs'],
  'stages.*.available_tools': ['read_file'],
  'stages.*.model': { provider: 'anthropic', model: 'claude-sonnet-5' },
  'stages.*.model.models': [{ provider: 'anthropic', model: 'claude-sonnet-5' }],
  'compaction.provider': 'anthropic',
  'compaction.model': 'claude-sonnet-5',
  'stages.*.required_tools': ['read_file'],
  'stages.*.tool_routing.default_region': 'conversation',
  'stages.*.tool_routing.overrides.*': 'conversation',
  'stages.*.tool_routing.overrides.*.region': 'conversation',
  'stages.*.model.model': 'claude-sonnet-5',
  'stages.*.model.provider': 'anthropic',
  'stages.*.model.models[].provider': 'anthropic',
  'stages.*.model.models[].model': 'claude-sonnet-5',
  'stages.*.model.fallbacks[].provider': 'openai',
  'stages.*.model.fallbacks[].model': 'gpt-5.5',
  'stages.*.transitions.*.gate.require_regions': ['notes'],
  'stages.*.transitions.*.gate.require_region_updated': 'notes',
  'stages.*.transitions.*.gate.require_no_open_items': 'todo',
  'stages.*.transitions.*.gate.region': 'notes',
  'stages.*.transitions.*.gate.tools': ['read_file'],
  'stages.*.transitions.*.transform_config.carry': ['notes'],
  'stages.*.transitions.*.transform_config.compact': ['scratch'],
  'stages.*.transitions.*.transform_config.clear': ['scratch'],
  'stages.*.interaction_points[].document_region': 'notes',
  'stages.*.interaction_points[].options': ['Approve', 'Stop'],
  'stages.*.interaction_points[].choices': ['Approve', 'Stop'],
  'stages.*.interaction_points[].abort_options': ['Stop'],
  'stages.*.interaction_points[].edit_options': ['Approve'],
  'stages.*.interaction_points[].directives': { Approve: 'Go on.' },
  'stages.*.interaction_points[].followups': { Approve: 'Go on.' },
  'context.file_tracking.region': 'files',
  'stages.*.hooks.on_stage_enter': 'hooks/enter.rhai',
  'stages.*.hooks.on_stage_exit': 'hooks/enter.rhai',
  'stages.*.hooks.before_inference': 'hooks/enter.rhai',
  'stages.*.hooks.after_inference': 'hooks/enter.rhai',
  'stages.*.hooks.on_tool_call': 'hooks/enter.rhai',
  'stages.*.hooks.on_completion': 'hooks/enter.rhai',
  'stages.*.hooks.on_error': 'hooks/enter.rhai',
  'sandbox.image': 'debian:stable',
  'stages.*.sandbox.image': 'debian:stable',
  'read_paths.allow': [],
  'safe_commands.shell': ['rg'],
  'safe_commands.tools': ['read_file'],
  'transforms[].from_blueprint': 'probe',
  'transforms[].to_blueprint': 'b',
  'transforms[].mappings[].from_region': 'notes',
  'transforms[].mappings[].to_region': 'notes',
  'agent.output.schema': { type: 'object' },
  'stages.*.output.schema': { type: 'object' },
  'agent.output.validator': 'validate.rhai',
  'stages.*.output.validator': 'validate.rhai',
  'agent.output.format': 'json',
  'stages.*.output.format': 'json',
  'tool_permissions.*': 'allow',
  'stages.*.tool_permissions.*': 'allow',
};

/** The region kind a region key belongs to, for a region key that is read by only some kinds. */
const REGION_KIND_OF: Record<string, string> = {
  max_items: 'sliding_window',
  strategy: 'sliding_window',
  overflow: 'sliding_window',
  compact_count: 'sliding_window',
  compact_at: 'compacting',
  threshold_tokens: 'compacting',
  source_region: 'compact_history',
  max_entries: 'hashmap',
  script: 'custom',
  persistent: 'custom',
  admission: 'temporary',
};

/** Keys of the region a region key needs beside its kind to have an effect. */
const REGION_NEEDS: Record<string, Record<string, unknown>> = {
  overflow: { strategy: 'bulk' },
  compact_count: { strategy: 'compact' },
  persistent: { script: 'render.rhai' },
};

const REGION_SAMPLES: Record<string, unknown> = {
  budget: '5%',
  compact_count: 2,
  compact_at: '80%',
  source_region: 'notes',
  script: 'render.rhai',
  seed: { literal: 'x' },
  strategy: 'per_item',
};

function sampleOf(s: Schema): unknown {
  const d = deref(s);
  if (d.enum) return d.enum[0];
  if (d.oneOf) return sampleOf(d.oneOf[0] as Schema);
  switch (d.type) {
    case 'boolean':
      return true;
    case 'integer':
      return Math.max(1, d.minimum ?? 1);
    case 'number':
      return 0.5;
    case 'string':
      return 'text';
    case 'array':
      return d.items && deref(d.items).type === 'object' ? [] : ['text'];
    default:
      return {};
  }
}

function schemaAt(path: string): Schema {
  let s: Schema = root;
  for (const part of path.replace(/\[\]/g, '.[]').split('.')) {
    const d = deref(s);
    if (part === '[]') s = d.items as Schema;
    else if (part === '*') s = d.additionalProperties as Schema;
    else {
      const direct = d.properties?.[part] ?? d.oneOf?.map((o) => deref(o).properties?.[part]).find(Boolean);
      s = direct as Schema;
    }
  }
  return s;
}

/** Where `path` lands in a document: `*` and `[]` become concrete names and one-element arrays. */
function setAt(doc: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.replace(/\[\]/g, '.[]').split('.');
  let node: Record<string, unknown> | unknown[] = doc;
  const names: Record<string, string> = { stages: 'work', regions: 'notes', transitions: 'work' };
  parts.forEach((part, i) => {
    const last = i === parts.length - 1;
    const key = part === '*' ? (names[parts[i - 1] ?? ''] ?? 'read_file') : part;
    if (part === '[]') {
      const arr = node as unknown[];
      if (last) arr.push(value);
      else {
        if (arr.length === 0) arr.push({});
        node = arr[0] as Record<string, unknown>;
      }
      return;
    }
    const obj = node as Record<string, unknown>;
    if (last) obj[key] = value;
    else {
      if (obj[key] === undefined) obj[key] = parts[i + 1] === '[]' ? [] : {};
      node = obj[key] as Record<string, unknown>;
    }
  });
}

/** Keys other keys need: an edge's transform_config needs transform = "custom", and so on. */
const CONTEXT: [string, Record<string, unknown>][] = [
  ['stages.*.transitions.*.transform_config', { 'stages.*.transitions.*.transform': 'custom' }],
  ['stages.*.transitions.*.gate', { 'stages.*.transitions.*.gate.require_modifications': true }],
  ['stages.*.transitions.*.gate.require_no_open_items', { 'context.regions.todo.kind': 'checklist' }],
  ['stages.*.transitions.*.stuck_after', { 'stages.*.transitions.*.condition': 'stuck' }],
  ['stages.*.transitions.*.transform_config.c', { 'context.regions.notes.kind': 'pinned' }],
  ['stages.*.transitions.*.gate.re', { 'context.regions.notes.kind': 'pinned' }],
  ['stages.*.interaction_points[].document_region', { 'context.regions.notes.kind': 'pinned' }],
  ['context.file_tracking', { 'context.regions.files.kind': 'hashmap' }],
  ['compaction.provider', { 'compaction.model': 'claude-sonnet-5' }],
  ['stages.*.model.models[].provider', { 'stages.*.model.models[].model': 'claude-sonnet-5' }],
  ['stages.*.transitions.*.transform_config.c', { 'context.regions.scratch.kind': 'clearable' }],
  ['context.regions.*.seed.tools[].args', { 'context.regions.*.seed.tools[].name': 'current_time' }],
  ['context.regions.*.seed.refresh', { 'context.regions.*.seed.tool': 'current_time' }],
  ['stages.*.model.provider', { 'stages.*.model.model': 'claude-sonnet-5' }],
  ['stages.*.model.fallbacks[].provider', { 'stages.*.model.fallbacks[].model': 'gpt-5.5' }],
  ['stages.*.context.regions.*.script', { 'context.regions.notes.script': 'render.rhai' }],
  ['stages.*.interaction_points', { 'stages.*.mode': 'interactive_points' }],
  // A transform applies from or to the blueprint that holds it; its own end names its own region.
  [
    'transforms',
    {
      'transforms[].from_blueprint': 'probe',
      'transforms[].to_blueprint': 'b',
      'context.regions.notes.kind': 'pinned',
    },
  ],
  [
    'transforms[].mappings',
    { 'transforms[].mappings[].from_region': 'notes', 'transforms[].mappings[].to_region': 'notes' },
  ],
  // A fan-out key does something on a fan-out stage; the stage is its own worker.
  ...FAN_OUT_KEYS.map((key): [string, Record<string, unknown>] => [
    `stages.*.${key}`,
    {
      'stages.*.mode': 'fan_out',
      ...(key.startsWith('worker_') ? {} : { 'stages.*.worker_stage': 'work' }),
      ...(key === 'worker_agent' || key === 'worker_query' ? {} : { 'stages.*.allow_as_worker': true }),
    },
  ]),
];

/**
 * An agents folder holding one installed agent, `worker`, that the
 * `worker_agent` and `worker_query` samples name (pass it as `agentsDir`).
 */
export function workerAgentsDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lev-agents-'));
  mkdirSync(join(dir, 'worker'));
  writeFileSync(join(dir, 'worker', 'agent.toml'), '[agent]\nname = "worker"\n[stages.main]\nmax_iterations = 3\n');
  return dir;
}

/** Files a key names, written beside the blueprint. */
export const FILES: Record<string, string> = {
  'render.rhai': 'fn render(ctx) { "x" }',
  'validate.rhai': 'fn validate(content) { () }',
  'hooks/enter.rhai': STAGE_HOOK_EVENTS.map((hook) => `fn ${hook}(ctx) { () }`).join('\n'),
};

/** A small blueprint that sets `path` and whatever it depends on. */
export function blueprintSetting(path: string): string {
  // A stage layout may repeat the seed of [context.regions] word for word (it may not give another one).
  if (path.startsWith('stages.*.context.regions.*.seed')) {
    const doc = parse(blueprintSetting(path.slice('stages.*.'.length)));
    setAt(doc, 'stages.*.context.regions.notes', (doc.context as { regions: { notes: unknown } }).regions.notes);
    return stringify(doc);
  }
  const doc: Record<string, unknown> = {
    agent: { name: 'probe' },
    stages: { work: { max_iterations: 5, available_tools: ['read_file'], transitions: {} } },
  };
  const regionKey = /^(stages\.\*\.)?context\.regions\.\*\.(\w+)/.exec(path)?.[2];
  if (regionKey && regionKey !== 'kind') {
    const kind = REGION_KIND_OF[regionKey] ?? 'pinned';
    for (const [key, v] of Object.entries({ kind, ...REGION_NEEDS[regionKey] })) {
      setAt(doc, `context.regions.notes.${key}`, v);
      if (path.startsWith('stages.')) setAt(doc, `stages.*.context.regions.notes.${key}`, v);
    }
    if (kind === 'compact_history') {
      setAt(doc, 'context.regions.src.kind', 'compacting');
      setAt(doc, 'context.regions.notes.source_region', 'src');
    }
    if (regionKey === 'min_tokens') setAt(doc, path.replace(/min_tokens$/, 'budget'), '5%');
  }
  const value =
    regionKey && path.split('.').at(-1) === regionKey && regionKey in REGION_SAMPLES
      ? REGION_SAMPLES[regionKey]
      : path in SAMPLES
        ? SAMPLES[path]
        : sampleOf(schemaAt(path));
  if (regionKey === 'source_region') setAt(doc, path, 'src');
  else if (path === 'stages.*.context.regions.*.kind') setAt(doc, 'context.regions.notes.kind', value);
  else setAt(doc, path, value);
  for (const [prefix, extra] of CONTEXT) {
    if (!path.startsWith(prefix)) continue;
    for (const [at, v] of Object.entries(extra)) if (at !== path) setAt(doc, at, v);
  }
  return stringify(doc);
}

/**
 * The benchmark repository's 70 blueprints (test/fixtures/README.md), written
 * out from their bundle into a fresh temporary directory, as its repository
 * lays them out; returns that directory.
 */
export function benchmarkBlueprints(): string {
  const bundle = readFileSync('test/fixtures/leviath-benchmarks/blueprints.json.br');
  const files = JSON.parse(brotliDecompressSync(bundle).toString('utf8')) as Record<string, string>;
  const root = mkdtempSync(join(tmpdir(), 'lev-benchmarks-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
