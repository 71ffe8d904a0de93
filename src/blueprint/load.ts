/**
 * Blueprint loading: TOML text -> checked, typed, deeply frozen Blueprint.
 * Any input yields diagnostics, never an exception: a file that cannot be
 * read, is not TOML, or breaks a rule of docs/reference/validation.md#errors comes back as coded
 * findings, and the blueprint is present only when none is an error.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import type { Diagnostic } from '../errors.js';
import { BUILTIN_MODELS } from '../providers/builtin-models.js';
import {
  type Blueprint,
  type CompactionConfig,
  type ContextPlacement,
  type FileTracking,
  type RegionDef,
  type RegionMapping,
  STAGE_INSTRUCTIONS,
  type StageDef,
  type ToolPermissions,
} from '../shapes/frozen-blueprint.js';
import type { ModelTable } from '../shapes/model-info.js';
import { RUNTIME_TOOLS } from '../shapes/tool-catalogue.js';
import { globalProvidersDir, globalToolsDir } from '../state/locations.js';
import { compileReadPaths } from '../tools/read-paths.js';
import { type AgentName, type Catalog, resolveAgents } from './agent-catalog.js';
import { agentsDir } from './agents-dir.js';
import { runChecks } from './checks.js';
import {
  checkTransforms,
  matchTransform,
  readTransforms,
  regionNames,
  type TransformTable,
} from './context-transforms.js';
import { DEFAULT_ASK_TIMEOUT_SECS, parseDuration } from './duration.js';
import { checkFanOuts } from './fan-out.js';
import { TableReader } from './fields.js';
import { didYouMean, Findings, inFileOrder } from './findings.js';
import { readStageHooks } from './hook-scripts.js';
import { runLints } from './lints.js';
import { guessProvider } from './model-chain.js';
import { parseModelTable } from './model-table.js';
import { NOTIFY_EXAMPLE, readWebhooks } from './notify-table.js';
import { readNudges } from './nudge.js';
import { parseOutputSpec } from './output-spec.js';
import { checkOutputValidators } from './output-validators.js';
import { assignPlacements } from './placement.js';
import { checkPointRegions } from './points.js';
import { indexPositions } from './positions.js';
import { readProviderScripts } from './provider-scripts.js';
import { type ParsedRegion, parseRegion } from './regions.js';
import { RUN_RUNTIME_KEYS, readRunRuntime } from './runtime-table.js';
import { checkScripts } from './scripts.js';
import { ALWAYS_VISIBLE, appendedRuntimeRegions, systemRegion } from './stage-layouts.js';
import { parsePermissions, parseStage, type RegionRef } from './stages.js';
import { checkStageTools } from './tool-check.js';
import { readScriptTools } from './tool-scripts.js';
import {
  CONFIG_FILE_SECTIONS,
  reportMisplacedSections,
  reportUnbuiltKeys,
  UNBUILT_AGENT_KEYS,
  UNBUILT_SANDBOX_KEYS,
  UNBUILT_SECURITY_KEYS,
} from './unsupported.js';
import { emptyUserConfig, envNames, type UserConfig } from './user-config.js';
import { discoverWorker } from './worker-query.js';

export interface LoadOptions {
  /** `--window`: overrides every stage's window for window-dependent checks. */
  window?: number;
  userConfig?: UserConfig;
  /** The run's working directory, against which read paths resolve (default: the process's). */
  workdir?: string;
  /**
   * The catalog of other blueprints being built for a run (`src/blueprint/agent-catalog.ts`);
   * set only when a blueprint is loaded because another one names it.
   */
  catalog?: Catalog;
  /** The name and `[[transforms]]` of every blueprint of the catalog, by file, as each is read; set with `catalog`. */
  transformTables?: Map<string, TransformTable>;
  /** Where agents named by a bare name are looked up after the blueprint's siblings (default: agentsDir()). */
  agentsDir?: string;
  /** The script tools every blueprint may grant (default: globalToolsDir()). */
  toolsDir?: string;
  /** The script providers a model may name (default: globalProvidersDir()). */
  providersDir?: string;
}

export interface LoadResult {
  /** Present iff no diagnostic has severity `error`. */
  blueprint?: Blueprint;
  diagnostics: Diagnostic[];
  file: string;
}

const TOP_KEYS = [
  'agent',
  'transforms',
  'repetition_detection',
  'context',
  'compaction',
  'stages',
  'read_paths',
  'tool_permissions',
  'safe_commands',
  'security',
  'sandbox',
  'limits',
  'models',
  'run',
  'runtime',
  'repetition_detection',
  'notify',
] as const;
/** `[repetition_detection]`: the original's loop detector; its keys are checked here, its behaviour is the runtime's. */
const AGENT_KEYS = [
  'name',
  'description',
  'version',
  'entry_stage',
  'model',
  'output',
  'max_child_depth',
  'sub_agents',
  'nudge',
  'dynamic_tools',
] as const;
const COMPACTION_KEYS = ['provider', 'model', 'system_prompt', 'max_summary_tokens', 'temperature'] as const;
/** The file names a blueprint directory may hold; `agent.leviath` is the original Leviath's name. */
export const BLUEPRINT_FILE_NAMES = ['agent.toml', 'agent.leviath'] as const;
const FILE_TRACKING_KEYS = ['region', 'track_reads', 'track_writes', 'max_file_tokens'] as const;
const DEFAULT_MODEL = 'scripted:default';

/**
 * Where a blueprint path leads: a directory's `agent.toml` or `agent.leviath`
 * (`ambiguous` when it holds both), or the file itself.
 */
function blueprintFile(path: string): { file: string; ambiguous?: boolean } {
  const absolute = resolve(path);
  try {
    if (statSync(absolute).isDirectory()) {
      const present = BLUEPRINT_FILE_NAMES.filter((name) => existsSync(join(absolute, name)));
      return { file: join(absolute, present[0] ?? 'agent.toml'), ...(present.length > 1 ? { ambiguous: true } : {}) };
    }
  } catch {
    // A missing path is reported when the file is read.
  }
  return { file: absolute };
}

export function loadBlueprint(path: string, opts: LoadOptions = {}): LoadResult {
  const { file, ambiguous } = blueprintFile(path);
  if (ambiguous) {
    const findings = new Findings(dirname(file));
    findings.add(
      'blueprint-ambiguous',
      `${path} holds both agent.toml and agent.leviath, so it is unclear which one is the blueprint; delete or rename one of them.`,
    );
    return { diagnostics: findings.list, file: dirname(file) };
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const findings = new Findings(file);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      findings.add(
        'blueprint-not-found',
        `No blueprint at ${path}: give a directory holding agent.toml (or agent.leviath), or a .toml file.`,
      );
    } else {
      findings.add(
        'blueprint-unreadable',
        `${file} cannot be read (${code ?? (err as Error).message}); check that it is a readable file.`,
      );
    }
    return { diagnostics: findings.list, file };
  }
  return loadBlueprintFromString(text, dirname(file), file, opts);
}

function syntaxDiagnostic(err: unknown, file: string): Diagnostic {
  if (err instanceof TomlError) {
    const reason = (err.message.split('\n')[0] ?? '').replace(/^Invalid TOML document:\s*/, '');
    return {
      code: 'toml-syntax',
      severity: 'error',
      message: `Not valid TOML at line ${err.line}, column ${err.column}: ${reason}; fix the syntax there.`,
      path: '',
      file,
      line: err.line,
      column: err.column,
    };
  }
  return {
    code: 'toml-syntax',
    severity: 'error',
    message: 'The file could not be parsed as TOML; check that it is a text TOML file.',
    path: '',
    file,
  };
}

/**
 * A run carries its blueprint as workflow input, and Temporal refuses a
 * payload over 2 MB with an error the run cannot recover from; 1 MiB leaves
 * room for the task and the run's options.
 */
export const MAX_BLUEPRINT_BYTES = 1024 * 1024;

function checkCarriedSize(blueprint: Blueprint, findings: Findings): void {
  const bytes = Buffer.byteLength(JSON.stringify(blueprint), 'utf8');
  if (bytes <= MAX_BLUEPRINT_BYTES) return;
  const prompts = blueprint.stages
    .map((s) => ({ name: s.name, bytes: Buffer.byteLength(s.systemPrompt ?? '', 'utf8') }))
    .sort((a, b) => b.bytes - a.bytes)[0];
  const biggest =
    prompts && prompts.bytes > MAX_BLUEPRINT_BYTES / 2
      ? ` (the system_prompt of stage "${prompts.name}" alone is ${prompts.bytes} bytes)`
      : '';
  findings.add(
    'blueprint-too-large',
    `The blueprint is ${bytes} bytes as a run carries it${biggest}, more than the ${MAX_BLUEPRINT_BYTES} bytes a run accepts; move long texts into files a seed or read_file loads, or use fewer regions.`,
    prompts && biggest ? ['stages', prompts.name, 'system_prompt'] : [],
  );
}

function freeze<T>(value: T): T {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object' || Object.isFrozen(v)) continue;
    Object.freeze(v);
    for (const child of Object.values(v)) stack.push(child);
  }
  return value;
}

/** Checks every region name of one layout; duplicates are found after Unicode normalisation. */
function checkNames(layout: ParsedRegion[], prefix: string[], findings: Findings): void {
  const seen = new Map<string, string>();
  for (const { def } of layout) {
    const at = [...prefix, def.name];
    if (def.name === '' || /\s/u.test(def.name)) {
      findings.add(
        'bad-region-name',
        `Region name ${JSON.stringify(def.name)} ${def.name === '' ? 'is empty' : 'contains whitespace'}; use a name such as "my_notes".`,
        at,
      );
    }
    const normal = def.name.normalize('NFC');
    const earlier = seen.get(normal);
    if (earlier !== undefined) {
      findings.add(
        'duplicate-region',
        `Region ${JSON.stringify(def.name)} has the same name as ${JSON.stringify(earlier)} (they differ only in Unicode form); rename one of them.`,
        at,
      );
    } else seen.set(normal, def.name);
  }
}

function checkRuntimeRegion(
  def: RegionDef,
  at: string[],
  findings: Findings,
  global: boolean,
  kindKnown: boolean,
): void {
  if (def.name === 'conversation' && kindKnown && def.kind !== 'sliding_window') {
    findings.add(
      'runtime-region-invalid',
      `"conversation" holds the message history and must be kind = "sliding_window", not ${def.kind}; change its kind or rename the region.`,
      [...at, 'kind'],
    );
  }
  if (def.name !== STAGE_INSTRUCTIONS) return;
  if (kindKnown && def.kind !== 'pinned') {
    findings.add('runtime-region-invalid', `"stage_instructions" must be kind = "pinned", not ${def.kind}.`, [
      ...at,
      'kind',
    ]);
  }
  if (!global) {
    findings.add(
      'runtime-region-invalid',
      '"stage_instructions" must be declared in [context.regions]; a stage may only re-declare it to resize it.',
      at,
    );
  }
  if (def.placement === 'tail') {
    findings.add(
      'runtime-region-invalid',
      '"stage_instructions" always renders in the system section, right after the pinned blocks, so placement = "tail" is not allowed; remove the key.',
      [...at, 'placement'],
    );
    def.placement = 'system';
  }
  if (def.volatilityDeclared) {
    // The original accepts the key, so it is a warning; the region's rank stays `rewritten` whatever was written.
    findings.add(
      'stage-instructions-volatility-ignored',
      `"stage_instructions" is always rendered as rewritten, so volatility = "${def.volatility}" is ignored; remove the key.`,
      [...at, 'volatility'],
    );
    def.volatility = 'rewritten';
  }
}

export function loadBlueprintFromString(toml: string, dir: string, file: string, opts: LoadOptions = {}): LoadResult {
  let doc: Record<string, unknown>;
  const text = toml.replace(/^\uFEFF/, '');
  try {
    doc = parse(text);
  } catch (err) {
    return { diagnostics: [syntaxDiagnostic(err, file)], file };
  }
  const findings = new Findings(file, indexPositions(text));
  const catalog = opts.catalog ?? new Map();
  const transformTables = opts.transformTables ?? new Map();
  try {
    const blueprint = build(doc, resolve(dir), resolve(file), findings, { ...opts, catalog, transformTables });
    const diagnostics = inFileOrder(findings.list);
    if (findings.hasErrors()) {
      catalog.delete(resolve(file));
      return { diagnostics, file };
    }
    return { blueprint: freeze(blueprint), diagnostics, file };
  } catch (err) {
    // A checker bug must still come back as a finding the user can report, not a crash.
    findings.add(
      'bad-value',
      `Leviath could not finish checking this blueprint (${(err as Error).message}); please report this with the file attached.`,
    );
    return { diagnostics: findings.list, file };
  }
}

function build(
  doc: Record<string, unknown>,
  dir: string,
  file: string,
  findings: Findings,
  opts: LoadOptions & { catalog: Catalog; transformTables: Map<string, TransformTable> },
): Blueprint {
  const userConfig = opts.userConfig ?? emptyUserConfig();
  // Marked before the agents it names are loaded, so an agent naming this one back finds it.
  opts.catalog.set(file, null);
  const root = new TableReader(doc, [], findings);
  root.unknownKeys([...TOP_KEYS, ...Object.keys(CONFIG_FILE_SECTIONS)], 'unknown-key', 'A blueprint');
  reportMisplacedSections(root, CONFIG_FILE_SECTIONS);
  const transforms = readTransforms(root);

  const agentTable = root.table_('agent', '[agent] name = "coder"');
  agentTable?.unknownKeys([...AGENT_KEYS, ...Object.keys(UNBUILT_AGENT_KEYS)], 'unknown-key', '[agent]');
  if (agentTable) reportUnbuiltKeys(agentTable, UNBUILT_AGENT_KEYS, '[agent]');
  for (const key of ['batch_tool_hint', 'shell_hint']) agentTable?.boolean(key);
  const dynamicTools = agentTable?.boolean('dynamic_tools') === true;
  const fallbackName = (BLUEPRINT_FILE_NAMES as readonly string[]).includes(basename(file))
    ? basename(dir)
    : basename(file, extname(file));
  const agentName = agentTable?.string('name')?.trim() || fallbackName;
  const agentModel = agentTable?.string('model')?.trim() || undefined;

  const models = {
    ...parseModelTable(root.has('models') ? root.raw('models') : {}, BUILTIN_MODELS, findings),
    ...userConfig.models,
  };

  // Global layout.
  const context = root.table_('context', '[context.regions]');
  context?.unknownKeys(['regions', 'file_tracking', 'placement'], 'unknown-key', '[context]');
  const contextPlacement =
    context?.enumeration<ContextPlacement>('placement', ['auto', 'system'], 'unknown-placement') ?? 'auto';
  const regionsTable = context?.table_('regions', '[context.regions]');
  const declared: ParsedRegion[] = [];
  for (const [name, value] of Object.entries(regionsTable?.table ?? {})) {
    const parsed = parseRegion(name, value, ['context', 'regions', name], findings, { inStage: false });
    if (parsed) declared.push(parsed);
  }
  checkNames(declared, ['context', 'regions'], findings);
  for (const { def, kindKnown } of declared)
    checkRuntimeRegion(def, ['context', 'regions', def.name], findings, true, kindKnown);
  const defaultLayout = !context?.has('regions');
  const declaredNames = new Set(declared.map((r) => r.def.name));
  const regions: RegionDef[] = [
    ...(defaultLayout ? [systemRegion()] : []),
    ...declared.map((r) => r.def),
    ...appendedRuntimeRegions().filter((r) => !declaredNames.has(r.name)),
  ];
  const globalByName = new Map(regions.map((r) => [r.name, r]));
  const unknownKinds = new Set(declared.filter((r) => !r.kindKnown).map((r) => r.def.name));

  // Stages.
  const stageModel = agentModel ?? DEFAULT_MODEL;
  const stages: StageDef[] = [];
  const routingRefs = new Map<string, RegionRef[]>();
  const catalogue = new Map(globalByName);
  const stagesTable = root.table_('stages', '[stages.main]');
  for (const [name, value] of Object.entries(stagesTable?.table ?? {})) {
    const findWorker = (query: string) => discoverWorker(opts.agentsDir ?? agentsDir(), query, BLUEPRINT_FILE_NAMES);
    const parsed = parseStage(name, value, findings, { model: stageModel, models, findWorker }, (region) =>
      globalByName.get(region),
    );
    if (!parsed) continue;
    stages.push(parsed.def);
    routingRefs.set(name, parsed.routingRefs);
    if (parsed.layout) {
      const prefix = ['stages', name, 'context', 'regions'];
      checkNames(parsed.layout, prefix, findings);
      for (const { def, kindKnown } of parsed.layout) {
        checkRuntimeRegion(
          def,
          [...prefix, def.name],
          findings,
          globalByName.has(STAGE_INSTRUCTIONS) || def.name !== STAGE_INSTRUCTIONS,
          kindKnown,
        );
        if (!kindKnown) unknownKinds.add(def.name);
        const prior = catalogue.get(def.name);
        if (!prior) catalogue.set(def.name, def);
        else if (!globalByName.has(def.name) && kindKnown && !unknownKinds.has(def.name) && prior.kind !== def.kind) {
          findings.add(
            'region-kind-changed',
            `Region "${def.name}" is a ${prior.kind} in an earlier stage and a ${def.kind} here; a region keeps one kind, so use the same kind or another name.`,
            [...prefix, def.name, 'kind'],
          );
        }
      }
    }
  }
  if (stages.length === 0) stages.push({ name: 'main', model: stageModel, allowComplete: false, transitions: [] });

  const entryStage = agentTable?.string('entry_stage');
  const stageNames = stages.map((s) => s.name);
  if (entryStage !== undefined && !stageNames.includes(entryStage)) {
    findings.add(
      'unknown-stage',
      `entry_stage "${entryStage}" is not a stage; write one of ${stageNames.map((s) => `"${s}"`).join(', ')}.`,
      ['agent', 'entry_stage'],
    );
  }

  assignPlacements([...regions, ...stages.flatMap((s) => s.regions ?? [])], contextPlacement);

  const blueprint: Blueprint = {
    dir,
    file,
    agent: {
      name: agentName,
      entryStage: entryStage !== undefined && stageNames.includes(entryStage) ? entryStage : (stageNames[0] ?? 'main'),
    },
    regions,
    defaultLayout,
    compaction: readCompaction(root, models),
    stages,
    readPaths: { allow: readPathsAllow(root) },
    toolPermissions: readPermissions(root),
    safeCommands: { shell: readSafeCommands(root) },
    security: readSecurity(root, userConfig),
    sandbox: readSandbox(root),
    limits: { scriptShellTimeoutSecs: readLimits(root) },
    run: readRun(root),
    ...readRepetitionDetection(root),
    models,
  };
  const description = agentTable?.string('description')?.trim();
  if (description) blueprint.agent.description = description;
  const version = agentTable?.string('version');
  if (version !== undefined) blueprint.agent.version = version;
  if (agentModel !== undefined) blueprint.agent.model = agentModel;
  // Only when written, so the blueprints of earlier versions keep their JSON (and their hash).
  const webhooks = readWebhooks(root.raw('notify'), (problem) =>
    findings.add('bad-value', `[notify] ${problem}; write ${NOTIFY_EXAMPLE}.`, root.at('notify')),
  );
  if (webhooks.length > 0) blueprint.notify = webhooks;
  const runtime = readRuntime(root, userConfig);
  if (Object.keys(runtime).length > 0) blueprint.runtime = runtime;
  if (agentTable?.has('output')) {
    const output = parseOutputSpec(agentTable.raw('output'), agentTable.at('output'), findings);
    if (output) blueprint.agent.output = output;
  }
  const maxDepth = agentTable?.integer('max_child_depth', 0);
  if (maxDepth !== undefined) blueprint.agent.maxChildDepth = maxDepth;
  const mcpServers = userConfig.mcpServers.map((m) => m.name);
  const scripts = readScriptTools(blueprint, findings, RUNTIME_TOOLS, mcpServers, opts.toolsDir ?? globalToolsDir());
  // Only when there are some, so the blueprints of earlier versions keep their JSON (and their hash).
  if (scripts.tools.length > 0) blueprint.scriptTools = scripts.tools;
  const providerScripts = readProviderScripts(
    blueprint,
    findings,
    userConfig,
    opts.providersDir ?? globalProvidersDir(),
  );
  if (providerScripts.length > 0) blueprint.providerScripts = providerScripts;
  // The original's own file: its web tools are scripts there, so one without the script is refused as there.
  const original = blueprint.file.endsWith('.leviath') ? scripts.shadowed : undefined;
  checkStageTools(blueprint, findings, mcpServers, scripts.refused, original, dynamicTools);
  checkFanOuts(blueprint, findings);
  checkPointRegions(blueprint, findings);
  // Kept before the agents it names are loaded, so an agent naming this one back finds its table.
  const table: TransformTable = { name: agentName, transforms };
  opts.transformTables.set(file, table);
  readAgents(blueprint, agentTable, findings, opts);
  checkTransforms(
    table,
    (region) => catalogue.has(region) || (ALWAYS_VISIBLE as readonly string[]).includes(region),
    startedRegions(blueprint, opts.catalog),
    findings,
  );
  const handoffs = resolveHandoffs(blueprint, table, opts.transformTables);
  if (handoffs) blueprint.handoffs = handoffs;
  const fileTracking = context ? readFileTracking(context) : undefined;
  if (fileTracking) blueprint.fileTracking = fileTracking;

  checkScripts(blueprint, findings);
  checkOutputValidators(blueprint, findings);
  readNudges(blueprint, agentTable, stagesTable?.table, findings);
  readStageHooks(blueprint, stagesTable?.table, findings);
  runChecks({ bp: blueprint, findings, catalogue, unknownKinds, routingRefs, windowOverride: opts.window });
  runLints(blueprint, findings, opts.window);
  checkCarriedSize(blueprint, findings);
  if (blueprint.readPaths.allow.length > 0) {
    const { diagnostics } = compileReadPaths(
      blueprint.readPaths.allow,
      {
        agentAllow: userConfig.agentReadPaths[agentName],
        securityReadPaths: userConfig.security.readPaths,
        allowBlueprintReadPaths: userConfig.security.allowBlueprintReadPaths,
      },
      opts.workdir ?? process.cwd(),
      homedir(),
    );
    findings.addAll(diagnostics);
  }
  return blueprint;
}

/**
 * The other blueprints this one names (`worker_agent`, `[agent] sub_agents`),
 * loaded into the run's catalog; the blueprint a run starts with carries the
 * whole catalog (docs/reference/sub-agents.md#other-blueprints).
 */
function readAgents(
  bp: Blueprint,
  agentTable: TableReader | undefined,
  findings: Findings,
  opts: LoadOptions & { catalog: Catalog; transformTables: Map<string, TransformTable> },
): void {
  const names: AgentName[] = [];
  for (const stage of bp.stages) {
    const worker = stage.fanOut?.worker;
    if (worker && 'agent' in worker) names.push({ name: worker.agent, at: ['stages', stage.name, 'worker_agent'] });
  }
  for (const name of agentTable?.stringArray('sub_agents') ?? []) names.push({ name, at: ['agent', 'sub_agents'] });
  const isRoot = [...opts.catalog.keys()][0] === bp.file;
  if (names.length > 0) {
    const refs = resolveAgents(
      bp.dir,
      names,
      opts.catalog,
      (path, catalog) => loadBlueprint(path, { ...opts, catalog }),
      findings,
      opts.agentsDir ?? agentsDir(),
    );
    if (Object.keys(refs).length > 0) bp.agentRefs = refs;
  }
  opts.catalog.set(bp.file, bp);
  if (!isRoot) return;
  const agents: Record<string, Blueprint> = {};
  for (const [file, agent] of opts.catalog) if (agent && file !== bp.file) agents[file] = agent;
  if (Object.keys(agents).length > 0) bp.agents = agents;
}

/** The regions of each blueprint this one starts, by `[agent] name`, for the other end of its transforms. */
function startedRegions(bp: Blueprint, catalog: Catalog): Map<string, Set<string>> {
  const regions = new Map<string, Set<string>>();
  for (const key of Object.values(bp.agentRefs ?? {})) {
    const agent = catalog.get(key);
    if (agent) regions.set(agent.agent.name, regionNames(agent));
  }
  return regions;
}

/** The mappings each agent this blueprint starts is handed (`Blueprint.handoffs`); undefined when none. */
function resolveHandoffs(
  bp: Blueprint,
  table: TransformTable,
  tables: ReadonlyMap<string, TransformTable>,
): Record<string, RegionMapping[]> | undefined {
  const handoffs: Record<string, RegionMapping[]> = {};
  for (const key of new Set(Object.values(bp.agentRefs ?? {}))) {
    const child = tables.get(key);
    const mappings = child && matchTransform(table, child);
    if (mappings) handoffs[key] = mappings;
  }
  return Object.keys(handoffs).length > 0 ? handoffs : undefined;
}

function readCompaction(root: TableReader, models: ModelTable): CompactionConfig {
  const t = root.table_('compaction', '[compaction] max_summary_tokens = 2000');
  t?.unknownKeys(COMPACTION_KEYS, 'unknown-key', '[compaction]');
  const config: CompactionConfig = {
    maxSummaryTokens: t?.integer('max_summary_tokens', 1) ?? 2000,
    temperature: t?.number('temperature', 0, 2) ?? 0.2,
  };
  // The original names the summariser with `provider` + `model`; `model = "provider:model"` works alone.
  const provider = t?.string('provider')?.trim();
  const model = t?.string('model')?.trim();
  if (model && provider) config.model = model.startsWith(`${provider}:`) ? model : `${provider}:${model}`;
  // A bare name is not taken as an OpenAI model by default: the model table says whose it is (claude-* is Anthropic's).
  else if (model) config.model = model.includes(':') ? model : guessProvider(model, models);
  else if (provider)
    t?.findings.add(
      'bad-value',
      `[compaction] names provider = "${provider}" but no model; add model = "..." or remove provider.`,
      t.at('provider'),
    );
  const prompt = t?.string('system_prompt');
  if (prompt?.trim()) config.systemPrompt = prompt;
  return config;
}

function readFileTracking(context: TableReader): FileTracking | undefined {
  const t = context.table_('file_tracking', '[context.file_tracking] region = "files"');
  if (!t) return undefined;
  t.unknownKeys(FILE_TRACKING_KEYS, 'unknown-key', '[context.file_tracking]');
  const tracking: FileTracking = {
    region: t.string('region') ?? 'files',
    trackReads: t.boolean('track_reads') ?? true,
    trackWrites: t.boolean('track_writes') ?? true,
  };
  const max = t.integer('max_file_tokens', 1);
  if (max !== undefined) tracking.maxFileTokens = max;
  return tracking;
}

function readPathsAllow(root: TableReader): string[] {
  const t = root.table_('read_paths', '[read_paths] allow = ["~/notes"]');
  t?.unknownKeys(['allow'], 'unknown-key', '[read_paths]');
  return t?.stringArray('allow') ?? [];
}

function readPermissions(root: TableReader): ToolPermissions {
  const t = root.table_('tool_permissions', '[tool_permissions] shell = "ask"');
  return t ? parsePermissions(t) : { tools: {} };
}

function readSafeCommands(root: TableReader): string[] {
  const t = root.table_('safe_commands', '[safe_commands] shell = ["make test"]');
  t?.unknownKeys(['shell', 'tools'], 'unknown-key', '[safe_commands]');
  if (t?.stringArray('tools') !== undefined)
    reportUnbuiltKeys(
      t,
      { tools: 'these tools still ask or run as [tool_permissions] says; set them to "allow" there' },
      '[safe_commands]',
    );
  return t?.stringArray('shell') ?? [];
}

function readSecurity(root: TableReader, user: UserConfig): Blueprint['security'] {
  const t = root.table_('security', '[security] allow_seed_commands = false');
  if (t) reportUnbuiltKeys(t, UNBUILT_SECURITY_KEYS, '[security]');
  if (t?.has('taint_tracking')) t.boolean('taint_tracking');
  for (const key of Object.keys(t?.table ?? {})) {
    if (key === 'allow_seed_commands' || key in UNBUILT_SECURITY_KEYS || !t) continue;
    const hint =
      key === 'read_paths' || key === 'allow_blueprint_read_paths'
        ? ' a blueprint cannot grant itself read access; declare [read_paths] allow here and grant it in your own config'
        : ' the only key it reads is allow_seed_commands';
    t.findings.add('unknown-key', `[security] in a blueprint has no key "${key}":${hint}.`, t.at(key));
  }
  const blueprintAllows = t?.boolean('allow_seed_commands') ?? true;
  return {
    allowSeedCommands: blueprintAllows && (user.security.allowSeedCommands ?? true),
    allowBlueprintReadPaths: user.security.allowBlueprintReadPaths,
    readPaths: [...user.security.readPaths],
  };
}

/** A blueprint may name variables its commands need; where and how they run is the user's config alone. */
function readSandbox(root: TableReader): { env: string[]; network?: boolean } {
  const t = root.table_('sandbox', '[sandbox] env = ["CARGO_HOME"]');
  if (t) reportUnbuiltKeys(t, UNBUILT_SANDBOX_KEYS, '[sandbox]');
  for (const key of Object.keys(t?.table ?? {})) {
    if (key === 'env' || key === 'network' || key in UNBUILT_SANDBOX_KEYS || !t) continue;
    t.findings.add(
      'unknown-key',
      `[sandbox] in a blueprint has no key "${key}"${didYouMean(key, ['env', 'network', ...Object.keys(UNBUILT_SANDBOX_KEYS)])}: the keys it reads are env and network.`,
      t.at(key),
    );
  }
  const network = t?.boolean('network');
  return { env: t ? envNames(t) : [], ...(network === true ? { network } : {}) };
}

/**
 * `[run]`: how a run waits for people (docs/reference/operators.md#ask_timeout) and for its tool
 * worker (docs/reference/long-runs.md#tool_worker_patience), its spend caps
 * (docs/reference/long-runs.md#spend-caps) and how long it waits out a provider outage
 * (docs/reference/long-runs.md#provider-outages).
 */
function readRun(root: TableReader): NonNullable<Blueprint['run']> {
  const t = root.table_('run', '[run] ask_timeout = "30m"');
  t?.unknownKeys(
    ['ask_timeout', 'max_cost_usd', 'max_tokens', 'tool_worker_patience', 'provider_patience', 'fallback_after'],
    'unknown-key',
    '[run]',
  );
  const maxCostUsd = t?.number('max_cost_usd', 0, Number.MAX_VALUE);
  const maxTokens = t?.integer('max_tokens', 1);
  const toolWorkerPatienceSecs = t ? runDuration(t, 'tool_worker_patience', '1h') : undefined;
  const providerPatienceSecs = t ? runDuration(t, 'provider_patience', '6h') : undefined;
  const fallbackAfterSecs = t ? runDuration(t, 'fallback_after', '2m') : undefined;
  return {
    askTimeoutSecs: (t ? runDuration(t, 'ask_timeout', '30m') : undefined) ?? DEFAULT_ASK_TIMEOUT_SECS,
    ...(maxCostUsd !== undefined ? { maxCostUsd } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(toolWorkerPatienceSecs !== undefined ? { toolWorkerPatienceSecs } : {}),
    ...(providerPatienceSecs !== undefined ? { providerPatienceSecs } : {}),
    ...(fallbackAfterSecs !== undefined ? { fallbackAfterSecs } : {}),
  };
}

/** `[runtime]`: each key the blueprint's, else the user config's (`runtime-table.ts`). */
function readRuntime(root: TableReader, userConfig: UserConfig): NonNullable<Blueprint['runtime']> {
  const t = root.table_('runtime', '[runtime] local_inference = true');
  t?.unknownKeys(RUN_RUNTIME_KEYS, 'unknown-key', '[runtime]');
  const own = readRunRuntime(t);
  const localInference = own.localInference ?? userConfig.runtime.localInference;
  const stableTools = own.stableTools ?? userConfig.runtime.stableTools;
  return {
    ...(localInference !== undefined ? { localInference } : {}),
    ...(stableTools !== undefined ? { stableTools } : {}),
  };
}

/** A duration key of `[run]` in seconds; a value that is not a duration is `bad-duration` and reads as unset. */
function runDuration(t: TableReader, key: string, example: string): number | undefined {
  const raw = t.string(key);
  if (raw === undefined) return undefined;
  const secs = parseDuration(raw);
  if (secs === undefined)
    t.findings.add(
      'bad-duration',
      `[run] ${key} = "${raw}" is not a duration; write a number with s, m, h or d, such as "${example}" or "1h30m".`,
      t.at(key),
    );
  return secs;
}

/** `[repetition_detection]`, the original's keys (docs/reference/long-runs.md#repetition-detection). */
function readRepetitionDetection(root: TableReader): Pick<Blueprint, 'repetitionDetection'> {
  const t = root.table_('repetition_detection', '[repetition_detection] max_repeat_calls = 3');
  if (!t) return {};
  t.unknownKeys(['enabled', 'max_repeat_calls', 'max_readonly_streak'], 'unknown-key', '[repetition_detection]');
  const enabled = t.boolean('enabled');
  const maxRepeatCalls = t.integer('max_repeat_calls', 1);
  const maxReadonlyStreak = t.integer('max_readonly_streak', 1);
  return {
    repetitionDetection: {
      ...(enabled !== undefined ? { enabled } : {}),
      ...(maxRepeatCalls !== undefined ? { maxRepeatCalls } : {}),
      ...(maxReadonlyStreak !== undefined ? { maxReadonlyStreak } : {}),
    },
  };
}

function readLimits(root: TableReader): number {
  const t = root.table_('limits', '[limits] script_shell_timeout_secs = 60');
  t?.unknownKeys(['script_shell_timeout_secs'], 'unknown-key', '[limits]');
  return t?.integer('script_shell_timeout_secs', 1) ?? 60;
}
