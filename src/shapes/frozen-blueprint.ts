/**
 * The typed, validated blueprint: plain frozen data that a workflow can
 * receive as an argument. Produced by the loader (`src/blueprint/load.ts`)
 * after every default of docs/reference/regions.md, docs/reference/routing.md, docs/reference/stages.md and
 * docs/reference/seeds.md has been applied, so
 * consumers never re-derive defaults. Keys are camelCase versions of the
 * TOML keys.
 */
import type { Encoding, ModelInfo } from './model-info.js';
import type { ModelParameters } from './model-parameters.js';
import type { Webhook } from './webhooks.js';

export const REGION_KINDS = [
  'pinned',
  'sliding_window',
  'compacting',
  'compact_history',
  'temporary',
  'clearable',
  'hashmap',
  'checklist',
  'custom',
] as const;
export type RegionKind = (typeof REGION_KINDS)[number];

/** The region that holds the current stage's prompt when a blueprint declares it. */
export const STAGE_INSTRUCTIONS = 'stage_instructions';
/** The region of the model's turns and the person's messages, which every stage has. */
export const CONVERSATION = 'conversation';
/** The region a `submit_output` answer is written to. */
export const FINAL_OUTPUT = 'final_output';

export type Admission = 'evict' | 'reject';
export type Volatility = 'stable' | 'grows' | 'rewritten';
/** Where a region's blocks go in the prompt (docs/reference/rendering.md#placement). */
export type Placement = 'system' | 'tail';
/** `[context] placement`: the default for regions that set none. */
export type ContextPlacement = 'auto' | 'system';
export type WindowStrategy = 'per_item' | 'bulk' | 'compact';
export type SeedRefresh = 'once' | 'each_stage';

/** One tool call made by a `tool`/`tools` seed. */
export interface SeedToolCall {
  name: string;
  args: Record<string, unknown>;
}

/** docs/reference/seeds.md#forms. `refresh` defaults to `once`. */
export type SeedSpec = { refresh: SeedRefresh } & (
  | { form: 'task_input' }
  | { form: 'input' }
  | { form: 'caller'; key: string }
  | { form: 'files'; paths: string[] }
  | { form: 'glob'; pattern: string }
  | { form: 'literal'; text: string }
  | { form: 'rhai'; path: string }
  | { form: 'command'; command: string }
  | { form: 'tools'; calls: SeedToolCall[] }
);

/**
 * A region declaration with every default applied (docs/reference/regions.md#common-keys and
 * docs/reference/regions.md#per-kind-keys).
 */
export interface RegionDef {
  name: string;
  kind: RegionKind;
  /** Budget percentage 0 < p <= 100, when `budget` was given. */
  budgetPercent?: number;
  /** The budget string exactly as written, for display. */
  budgetText?: string;
  /** As written; absent means "5000 when no budget" (see `src/context/budget.ts`). */
  maxTokens?: number;
  minTokens?: number;
  admission: Admission;
  volatility: Volatility;
  /** True when `volatility` was written explicitly (stage_instructions may not). */
  volatilityDeclared: boolean;
  summarizable: boolean;
  required: boolean;
  requiredMessage?: string;
  description?: string;
  describeInPrompt: boolean;
  seed?: SeedSpec;
  /** A `seed` was written but matched no form (`region-seed-not-understood`): the region starts empty. */
  seedIgnored?: boolean;
  /**
   * When a write overflows the token budget, evict down to this fraction of
   * it rather than just enough, so the region's head changes in chunks. The
   * loader sets it (temporary regions and bulk windows); blueprints recorded
   * before it existed lack it and keep evicting just enough on replay.
   */
  shedTo?: number;
  /**
   * Where the region's blocks render: in the system section or in the tail
   * message after the conversation (docs/reference/rendering.md#placement).
   * The loader sets it on every region that renders blocks; blueprints
   * recorded before it existed lack it and keep rendering in the system section.
   */
  placement?: Placement;
  /**
   * New entries render as messages at the point of their write, and the region's block is laid
   * out again only when entries leave it (docs/reference/rendering.md#writes-in-place). The loader
   * sets it on regions of kinds that only append (`[context] placement = "auto"`); blueprints
   * recorded before it existed lack it and re-render the whole block on every write.
   */
  writesInPlace?: true;

  // sliding_window
  maxItems?: number;
  strategy?: WindowStrategy;
  overflow?: number;
  compactCount?: number;
  // compacting
  /** `compact_at` as a fraction 0 < f <= 1. */
  compactAt?: number;
  thresholdTokens?: number;
  // compact_history
  sourceRegion?: string;
  // hashmap
  maxEntries?: number;
  // custom
  /** Path relative to the blueprint directory. */
  script?: string;
  /** Script source, read at load so workflow code never touches the disk. */
  scriptSource?: string;
  persistent?: boolean;
}

export interface GateDef {
  requireModifications?: boolean;
  requireRegions?: string[];
  requireRegionUpdated?: string;
  requireNoOpenItems?: string;
  message?: string;
  region?: string;
  tools?: string[];
  /** Default 3. */
  maxAttempts: number;
}

export type EdgeCondition = 'always' | 'llm_choice' | 'error' | 'max_iterations' | 'stuck' | 'dead_end';
export type EdgeTransform = 'direct' | 'clear' | 'compact' | 'custom';

export interface TransformConfig {
  carry?: string[];
  clear?: string[];
  compact?: string[];
  compactPrompt?: string;
}

export interface EdgeDef {
  /** Target stage name (the TOML table key). */
  target: string;
  hint?: string;
  condition: EdgeCondition;
  gate?: GateDef;
  /** `summarize` is normalised to `compact`. */
  transform: EdgeTransform;
  transformConfig?: TransformConfig;
  stuckAfterIterations?: number;
  stuckAfterMinutes?: number;
  stuckAfterSameFileEdits?: number;
  stuckAfterToolCalls?: number;
}

export interface RoutingOverride {
  region?: string;
  maxResultTokens?: number;
}

export interface ToolRouting {
  defaultRegion: string;
  maxResultTokens?: number;
  /** Keyed by canonical tool name (aliases resolved, `bash` -> `shell`). */
  overrides: Record<string, RoutingOverride>;
  /** Keyed by canonical tool name. */
  maxResultTokensPerTool: Record<string, number>;
  persist: boolean;
}

export type PermissionMode = 'allow' | 'deny' | 'ask';

/** `[tool_permissions]`: tool name (canonical) -> mode; `default` applies to the rest. */
export interface ToolPermissions {
  default?: PermissionMode;
  tools: Record<string, PermissionMode>;
}

/** How a stage runs (docs/reference/stages.md#stage-modes). */
export type StageMode = 'autonomous' | 'output' | 'interactive' | 'interactive_points' | 'fan_out';

/** How an interaction point asks (docs/reference/interaction.md#interaction-points). */
export type InteractionStyle = 'free_text' | 'multiple_choice' | 'confirm';

/**
 * A checkpoint of an `interactive_points` stage, defaults applied
 * (docs/reference/interaction.md#interaction-points). Option lists hold the
 * labels as written; they are matched exactly, then with dashes and
 * whitespace folded.
 */
export interface InteractionPoint {
  name: string;
  prompt: string;
  /** `required = false`: a free-text point may be passed without text. */
  required: boolean;
  /** What the point does in a run nobody attends: `auto_approve` (the default) or `ask`. */
  unattended: 'ask' | 'auto_approve';
  style: InteractionStyle;
  /** The labels of a `multiple_choice` point (`options`, or its alias `choices`). */
  options: string[];
  /** Option label -> the instruction the stage runs again with (`directives`, or its alias `followups`). */
  directives: Record<string, string>;
  /** Options that end the run. */
  abortOptions: string[];
  /** Options that open the document for the person to edit. */
  editOptions: string[];
  /** The pinned region that holds the document under review. */
  documentRegion?: string;
}

/**
 * Who does a fan-out's work: a stage of this blueprint that allows it
 * (`worker_stage`), or another blueprint of the run's catalog
 * (`worker_agent`, by the name the blueprint wrote).
 */
export type WorkerRef = { stage: string } | { agent: string };

/** What a `[[transforms.mappings]]` entry does to the parent's text on its way (docs/reference/sub-agents.md#context-transforms). */
export const CONTENT_TRANSFORMS = ['direct', 'summarize', 'extract'] as const;
export type ContentTransform = (typeof CONTENT_TRANSFORMS)[number];

/** One `[[transforms.mappings]]` entry: a region of the parent handed to a region of the child it starts. */
export interface RegionMapping {
  from: string;
  to: string;
  transform: ContentTransform;
  /** `extract` only: the fields of a JSON object kept. */
  fields?: string[];
}

/** The keys of a `mode = "fan_out"` stage (docs/reference/sub-agents.md#the-fan-out-stage), defaults applied. */
export interface FanOutDef {
  worker: WorkerRef;
  /** At most this many workers run at once; 0 means no limit. Default 30. */
  maxWorkers: number;
  /** At most this many items in one call; absent means no limit. */
  maxItems?: number;
  /** Where the merged report is routed; absent: like any tool result of the stage. */
  resultsRegion?: string;
  onWorkerFailure: 'continue' | 'fail';
  /** The stage the run goes on with once the workers are done. */
  mergeStage?: string;
  /** Times the stage is asked again when it ends without a fan_out call. Default 3. */
  maxAttempts: number;
  /** `require_output = true` on the fan-out stage: a worker that hands back no `submit_output` answer counts as failed. */
  requireOutput?: boolean;
}

/**
 * The shape of a final answer (`[agent.output]`, `[stages.X.output]`, `lev run
 * --output-format`). `format` is a label; json, xml, yaml, csv and toml are
 * also parsed. `schema` is a JSON Schema the answer must satisfy.
 */
export interface OutputSpec {
  format?: string;
  instructions?: string;
  example?: string;
  schema?: Record<string, unknown>;
  /** The original's Rhai output validator: its path in the blueprint directory, as written. */
  validator?: string;
  /** The validator's source, read at load so no worker reads the blueprint directory. */
  validatorSource?: string;
}

export interface StageDef {
  name: string;
  /**
   * `provider:model`; defaults to `[agent] model`, else `scripted:default`.
   * With a fallback chain it is the chain's first entry, whose window the
   * budgets resolve against.
   */
  model: string;
  /** `model = { models = [...] }`: every entry in order, the first one equal to `model`. */
  models?: string[];
  /** `model = { parameters = {...} }`, checked against every provider of the chain (docs/providers.md#model-parameters). */
  modelParameters?: ModelParameters;
  /** Absent means `autonomous`. */
  mode?: StageMode;
  description?: string;
  /** This stage's output spec over `[agent.output]`; set on `output` stages and `require_output` ones. */
  output?: OutputSpec;
  /** True for `output` stages and `require_output = true`: the stage may not end without a valid submission. */
  requireOutput?: boolean;
  systemPrompt?: string;
  /** Token count of `systemPrompt`, filled in by the blueprint-loading activity. */
  systemPromptTokens?: number;
  /** Undefined means every built-in tool plus the context tools. */
  availableTools?: string[];
  /** MCP servers every tool of which the stage is given (docs/reference/mcp.md#tool-names-and-grants). */
  availableConnectors?: string[];
  /**
   * The names of `availableTools` that no tool answers yet: with `[agent] dynamic_tools`, scripts the
   * run may write into its workdir's `tools/` (docs/reference/script-tools.md#tools-a-run-writes).
   * Absent when there are none, so the blueprints of earlier versions keep their JSON (and their hash).
   */
  dynamicTools?: string[];
  maxIterations?: number;
  maxRevisits?: number;
  allowComplete: boolean;
  transitionPrompt?: string;
  /**
   * The empty-response nudge (`[agent.nudge]`, `nudge`): a reply without tool calls before the
   * stage's first call is answered with `text` and the stage runs on, `max` times at most.
   * Absent: not nudged.
   */
  nudge?: { max: number; text: string };
  /** `[stages.<name>.hooks]`: the script path of each hook, as written (docs/reference/stage-hooks.md). */
  hooks?: Partial<Record<string, string>>;
  /** The sources of those scripts by path, read at load so no worker reads the blueprint directory. */
  hookSources?: Record<string, string>;
  /** The stage's own layout (docs/reference/stages.md#layout); undefined when the stage declares none. */
  regions?: RegionDef[];
  /** Undefined when the stage has no `tool_routing` table (results go to `conversation`). */
  toolRouting?: ToolRouting;
  toolPermissions?: ToolPermissions;
  /** In declaration order. */
  transitions: EdgeDef[];
  /** Present on `mode = "fan_out"` stages. */
  fanOut?: FanOutDef;
  /** `allow_as_worker = true`: a fan-out or `spawn_agent` may start a run at this stage. */
  allowAsWorker?: boolean;
  /** `accepts_messages = false`: operators' messages wait for a later stage (docs/reference/operators.md#accepts_messages). */
  acceptsMessages?: boolean;
  /**
   * `allow_blocking_tools = true`: an autonomous stage may be offered the tools that wait for a person
   * (docs/reference/interaction.md#the-asking-tools).
   */
  allowBlockingTools?: boolean;
  /** The checkpoints of a `mode = "interactive_points"` stage, in order. */
  interactionPoints?: InteractionPoint[];
  /**
   * `required_tools`: tools that wait for a person and do so even in a run nobody attends
   * (docs/reference/interaction.md#runs-nobody-attends); canonical names.
   */
  requiredTools?: string[];
}

export interface FileTracking {
  region: string;
  trackReads: boolean;
  trackWrites: boolean;
  maxFileTokens?: number;
}

export interface CompactionConfig {
  /** `provider:model` of the summariser; `[compaction] provider` + `model` are joined into it. */
  model?: string;
  systemPrompt?: string;
  maxSummaryTokens: number;
  temperature: number;
}

export interface SecurityConfig {
  allowSeedCommands: boolean;
  allowBlueprintReadPaths: boolean;
  readPaths: string[];
}

/** One script tool: its declaration, and its script read at load (docs/reference/script-tools.md#declaring-a-tool). */
export interface ScriptToolDef {
  /** The name the model calls and `available_tools` grants (`// @tool`). */
  name: string;
  description: string;
  /** The JSON Schema of its arguments, as the model sees it: `{ type: "object", properties, required }`. */
  parameters: Record<string, unknown>;
  /** Where the script lies: `tools/<file>.rhai` in the blueprint directory, or its absolute path in the global tools folder; for messages. */
  path: string;
  /** The script, read at load, so a tool worker never reads the blueprint directory. */
  source: string;
}

/**
 * One script provider a stage names (docs/reference/script-providers.md): the `providers/<name>.rhai`
 * of the config folder, read and checked at load, so the workers that call it never read that folder.
 */
export interface ProviderScriptDef {
  /** The provider name stages write (`provider = "groq"`). */
  name: string;
  /** The script's absolute path, for messages. */
  path: string;
  source: string;
  /** Its `// @key value` lines (`default_model`, `max_context_tokens`, ...), as written. */
  meta: Record<string, string>;
}

export interface Blueprint {
  /** Absolute directory holding the blueprint; scripts must live inside it. */
  dir: string;
  /** Absolute path of the TOML file. */
  file: string;
  agent: {
    name: string;
    description?: string;
    version?: string;
    entryStage: string;
    model?: string;
    /** `[agent.output]`: the default shape of the run's final answer. */
    output?: OutputSpec;
    /** `[agent] max_child_depth`: how deep sub-agents may nest below this run (absent: 3). */
    maxChildDepth?: number;
  };
  /**
   * Other blueprints this one may start (`worker_agent`, `[agent] sub_agents`):
   * the name as written -> the key of that blueprint in the run's catalog.
   */
  agentRefs?: Record<string, string>;
  /**
   * The run's catalog of other blueprints, keyed by file path; only on the
   * blueprint a run was started with. Loaded on the client, so workflow code
   * never reads another blueprint from disk (docs/reference/sub-agents.md#other-blueprints).
   */
  agents?: Record<string, Blueprint>;
  /**
   * The `[[transforms]]` that apply when this blueprint starts another (either blueprint's table,
   * matched by both names at load): catalog key -> the mappings, in the order written; absent when
   * none applies, so the blueprints of earlier versions keep their JSON (and hash).
   */
  handoffs?: Record<string, RegionMapping[]>;
  /**
   * The global layout in declaration order, followed by the runtime regions
   * that were not declared (`tool_results`, `conversation`, `final_output`;
   * or `system` first when no `[context.regions]` exists). docs/reference/regions.md#runtime-regions.
   */
  regions: RegionDef[];
  /** True when the blueprint declared no `[context.regions]` at all. */
  defaultLayout: boolean;
  fileTracking?: FileTracking;
  compaction: CompactionConfig;
  /** In declaration order; a blueprint without stages gets one named `main`. */
  stages: StageDef[];
  readPaths: { allow: string[] };
  toolPermissions: ToolPermissions;
  safeCommands: { shell: string[] };
  security: SecurityConfig;
  /** `[sandbox] env`: variables the blueprint's commands may see besides the base allow-list. */
  sandbox?: { env: string[]; network?: boolean };
  limits: { scriptShellTimeoutSecs: number };
  /** `[run]`; absent in blueprints stored by earlier versions, which read as the defaults. */
  /**
   * `[run]`: how long a run waits for people, its spend caps (docs/reference/long-runs.md#spend-caps),
   * and how long it waits out a provider outage (docs/reference/long-runs.md#provider-outages); the
   * provider keys are set only when the blueprint writes them.
   */
  run?: {
    askTimeoutSecs: number;
    maxCostUsd?: number;
    maxTokens?: number;
    /** `tool_worker_patience`, when the blueprint sets it (docs/reference/long-runs.md#tool_worker_patience). */
    toolWorkerPatienceSecs?: number;
    providerPatienceSecs?: number;
    fallbackAfterSecs?: number;
  };
  /**
   * `[runtime]` of the blueprint, else of the user config: `local_inference`, whether inferences run
   * as local activities, and `stable_tools`, whether every turn offers the run's tools
   * (docs/reference/blueprint.md#runtime); each absent when neither sets it, so the blueprints of
   * earlier versions keep their JSON (and hash).
   */
  runtime?: { localInference?: boolean; stableTools?: boolean };
  /** `[repetition_detection]`, the keys it sets (docs/reference/long-runs.md#repetition-detection). */
  repetitionDetection?: { enabled?: boolean; maxRepeatCalls?: number; maxReadonlyStreak?: number };
  /** `[notify]`: webhooks told of the run's end and waits (docs/reference/cluster-runs.md#the-notify-table); absent when none. */
  notify?: Webhook[];
  /**
   * The Rhai script tools of the blueprint's `tools/` folder (docs/reference/script-tools.md);
   * absent when there are none, so the blueprints of earlier versions keep their JSON (and hash).
   */
  scriptTools?: ScriptToolDef[];
  /** The script providers its stages name; absent when none, so earlier blueprints keep their JSON (and hash). */
  providerScripts?: ProviderScriptDef[];
  /** Built-in table merged with `[models]` (and the user config). */
  models: Record<string, ModelInfo & { encoding?: Encoding }>;
}
