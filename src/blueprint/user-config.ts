/**
 * The user's own config: `$LEVIATH_CONFIG`, else config.toml in the config
 * folder (src/state/locations.ts; a missing file is an empty config). It
 * extends the model table and holds the grants a blueprint's `[read_paths]`
 * needs. Only the tables read here are checked; other tools may keep their
 * own tables in the same file.
 */
import { readFileSync } from 'node:fs';
import { parse, TomlError } from 'smol-toml';
import type { Diagnostic } from '../errors.js';
import { BUILTIN_MODELS } from '../providers/builtin-models.js';
import type { RateLimit } from '../providers/flow-control.js';
import type { Blueprint } from '../shapes/frozen-blueprint.js';
import type { ModelInfo } from '../shapes/model-info.js';
import { userConfigPath } from '../state/locations.js';
import { SCRIPT_IO_FUNCTIONS, SCRIPT_PERMISSIONS, type ScriptPermissions } from '../tools/builtin-names.js';
import type { SandboxKind } from '../tools/sandbox.js';
import type { SearchConfig } from '../tools/web-policy.js';
import { DEFAULT_WEB_POLICY, type WebPolicy } from '../tools/web-policy.js';
import { defaultSearchUrl, SEARCH_KINDS } from '../tools/web-search.js';
import { isTable, TableReader } from './fields.js';
import { Findings, inFileOrder } from './findings.js';
import { type McpServerConfig, parseMcpServers } from './mcp-servers.js';
import { parseModelTable } from './model-table.js';
import { indexPositions } from './positions.js';
import { readRateLimit, readRateLimits } from './rate-limits-table.js';
import { RUN_RUNTIME_KEYS, readRunRuntime } from './runtime-table.js';

export interface UserConfig {
  models: Record<string, ModelInfo>;
  security: { readPaths: string[]; allowBlueprintReadPaths: boolean; allowSeedCommands?: boolean };
  agentReadPaths: Record<string, string[]>;
  /**
   * `[runtime] blobs`: "local" or a postgres:// URL of a shared blob store;
   * `codec_key_file`: the keys that encrypt payloads and blob bodies (src/codec/keys.ts);
   * `local_inference`: the inference shape of blueprints that do not set theirs (`runtime-table.ts`).
   */
  runtime: { blobs?: string; codecKeyFile?: string } & NonNullable<Blueprint['runtime']>;
  /** `[sandbox]`: where commands run, and variables they may see besides the base allow-list. */
  sandbox: { kind: SandboxKind; env: string[]; network: boolean };
  /** `[[mcp_servers]]`: the MCP tool servers a run may use (docs/reference/mcp.md#configuring-servers). */
  mcpServers: McpServerConfig[];
  /** `[web]`: what `web_fetch` may reach (docs/reference/web.md#configuring-web-access). */
  web: WebPolicy;
  /** `[web.search]`: the search API `web_search` asks (docs/reference/web.md#web_search). */
  search?: SearchConfig;
  /** `[tool_script_permissions]`: what script tools' host functions may do (docs/reference/script-tools.md#permissions). */
  toolScriptPermissions: ScriptPermissions;
  /** `[rate_limits.*]`: what each worker holds a provider or a model to (docs/reference/long-runs.md#flow-control). */
  rateLimits: Record<string, RateLimit>;
  /** `[model_providers.<name>]`: the settings of the script providers (docs/reference/script-providers.md#configuring-one). */
  modelProviders: Record<string, ModelProviderConfig>;
}

/** One `[model_providers.<name>]` table. */
export interface ModelProviderConfig {
  /** `script`: the file's stem in the providers folder, when it is not the provider's name. */
  script?: string;
  /** Every other key but `rate_limit` (`api_key`, `base_url`, ...), as the script's `initialize(config)` receives them. */
  settings: Record<string, unknown>;
}

export function emptyUserConfig(): UserConfig {
  return {
    models: {},
    security: { readPaths: [], allowBlueprintReadPaths: false },
    agentReadPaths: {},
    runtime: {},
    sandbox: { kind: 'namespace', env: [], network: false },
    mcpServers: [],
    web: { ...DEFAULT_WEB_POLICY },
    toolScriptPermissions: {},
    rateLimits: {},
    modelProviders: {},
  };
}

export const SANDBOX_KINDS: readonly SandboxKind[] = ['namespace', 'none'];

/** A variable name a command's environment may carry. */
export const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function parseUserConfig(text: string, file: string): { config: UserConfig; diagnostics: Diagnostic[] } {
  const config = emptyUserConfig();
  let doc: Record<string, unknown>;
  try {
    doc = parse(text.replace(/^\uFEFF/, ''));
  } catch (err) {
    const findings = new Findings(file);
    const where = err instanceof TomlError ? ` at line ${err.line}, column ${err.column}` : '';
    findings.add('toml-syntax', `Your config is not valid TOML${where}; fix the syntax there.`);
    const d = findings.list[0];
    if (d && err instanceof TomlError) {
      d.line = err.line;
      d.column = err.column;
    }
    return { config, diagnostics: findings.list };
  }
  const findings = new Findings(file, indexPositions(text));
  const root = new TableReader(doc, [], findings);
  if (root.has('models')) {
    const merged = parseModelTable(root.raw('models'), BUILTIN_MODELS, findings);
    for (const ref of Object.keys(isTable(root.raw('models')) ? (root.raw('models') as object) : {})) {
      const info = merged[ref];
      if (info) config.models[ref] = info;
    }
  }
  const security = root.table_('security', '{ read_paths = ["~/notes"] }');
  if (security) {
    security.unknownKeys(
      ['read_paths', 'allow_blueprint_read_paths', 'allow_seed_commands'],
      'unknown-key',
      '[security]',
    );
    config.security.readPaths = security.stringArray('read_paths') ?? [];
    config.security.allowBlueprintReadPaths = security.boolean('allow_blueprint_read_paths') ?? false;
    const allowSeedCommands = security.boolean('allow_seed_commands');
    if (allowSeedCommands !== undefined) config.security.allowSeedCommands = allowSeedCommands;
  }
  const runtime = root.table_('runtime', '{ blobs = "postgres://leviath@db/leviath_blobs" }');
  if (runtime) {
    runtime.unknownKeys(['blobs', 'codec_key_file', ...RUN_RUNTIME_KEYS], 'unknown-key', '[runtime]');
    Object.assign(config.runtime, readRunRuntime(runtime));
    const blobs = runtime.string('blobs');
    if (blobs !== undefined) config.runtime.blobs = blobs;
    const codecKeyFile = runtime.string('codec_key_file');
    if (codecKeyFile !== undefined) config.runtime.codecKeyFile = codecKeyFile;
  }
  const sandbox = root.table_('sandbox', '[sandbox] kind = "namespace"');
  if (sandbox) {
    sandbox.unknownKeys(['kind', 'env', 'network'], 'unknown-key', '[sandbox]');
    config.sandbox.network = sandbox.boolean('network') ?? false;
    config.sandbox.kind = sandbox.enumeration('kind', SANDBOX_KINDS, 'bad-value') ?? 'namespace';
    config.sandbox.env = envNames(sandbox);
  }
  config.mcpServers = parseMcpServers(root.raw('mcp_servers'), root);
  config.rateLimits = readRateLimits(root);
  readModelProviders(root, config);
  const web = root.table_('web', '[web] allow_hosts = ["docs.example.com"]');
  if (web) {
    web.unknownKeys(
      ['allow_hosts', 'deny_hosts', 'allow_private', 'allow_addresses', 'max_bytes', 'search'],
      'unknown-key',
      '[web]',
    );
    config.web = {
      allowHosts: web.stringArray('allow_hosts') ?? [],
      denyHosts: web.stringArray('deny_hosts') ?? [],
      allowPrivate: web.boolean('allow_private') ?? false,
      allowAddresses: web.stringArray('allow_addresses') ?? [],
      maxBytes: web.integer('max_bytes', 1) ?? DEFAULT_WEB_POLICY.maxBytes,
    };
    const search = web.table_('search', '[web.search] kind = "searxng"\nurl = "https://searx.example.org"');
    if (search) {
      search.unknownKeys(['kind', 'url', 'api_key'], 'unknown-key', '[web.search]');
      const kind = search.enumeration('kind', SEARCH_KINDS, 'bad-value');
      const url = search.string('url') ?? (kind ? defaultSearchUrl(kind) : undefined);
      const apiKey = search.string('api_key');
      if (kind && url) config.search = { kind, url, ...(apiKey !== undefined ? { apiKey } : {}) };
      else
        search.findings.add(
          'bad-value',
          '[web.search] needs kind = "searxng" with the url of the instance, or kind = "brave" with api_key.',
          search.path,
        );
    }
  }
  const scripts = root.table_('tool_script_permissions', '[tool_script_permissions] shell = "deny"');
  if (scripts) {
    scripts.unknownKeys([...SCRIPT_IO_FUNCTIONS], 'unknown-key', '[tool_script_permissions]');
    for (const fn of SCRIPT_IO_FUNCTIONS) {
      const setting = scripts.enumeration(fn, SCRIPT_PERMISSIONS, 'bad-value');
      if (setting !== undefined) config.toolScriptPermissions[fn] = setting;
    }
  }
  const agents = root.table_('agent_read_paths', '[agent_read_paths.my-agent] allow = ["~/notes"]');
  for (const agent of Object.keys(agents?.table ?? {})) {
    const entry = agents?.table_(agent, '{ allow = ["~/notes"] }');
    if (!entry) continue;
    entry.unknownKeys(['allow'], 'unknown-key', `[agent_read_paths.${agent}]`);
    config.agentReadPaths[agent] = entry.stringArray('allow') ?? [];
  }
  return { config, diagnostics: inFileOrder(findings.list) };
}

/**
 * `[model_providers.<name>]`: `script`, `rate_limit` (held like `[rate_limits.<name>]`, which wins
 * when both are written), and any other key, handed to the script's `initialize(config)`.
 */
function readModelProviders(root: TableReader, config: UserConfig): void {
  const section = root.table_('model_providers', '[model_providers.groq] base_url = "https://api.groq.com/openai/v1"');
  for (const name of Object.keys(section?.table ?? {})) {
    const t = section?.table_(name, '{ api_key = "...", base_url = "https://..." }');
    if (!t) continue;
    const script = t
      .string('script')
      ?.trim()
      .replace(/\.rhai$/, '');
    // A name in the folder, never a path out of it.
    const usable = script !== undefined && /^[\w.-]+$/.test(script);
    if (script !== undefined && !usable)
      t.findings.add(
        'bad-value',
        `\`script\` of [model_providers.${name}] must be a file name in the providers folder, such as script = "groq".`,
        t.at('script'),
      );
    const limits = t.table_('rate_limit', '{ requests_per_minute = 30 }');
    const limit = limits ? readRateLimit(limits, `[model_providers.${name}.rate_limit]`) : undefined;
    if (limit && !config.rateLimits[name]) config.rateLimits[name] = limit;
    const settings = Object.fromEntries(
      Object.entries(t.table).filter(([key]) => key !== 'script' && key !== 'rate_limit'),
    );
    config.modelProviders[name] = { ...(usable ? { script } : {}), settings };
  }
}

/** Each script provider's settings, as its `initialize(config)` receives them. */
export function scriptProviderSettings(config: UserConfig): Record<string, Record<string, unknown>> {
  return Object.fromEntries(Object.entries(config.modelProviders).map(([name, c]) => [name, c.settings]));
}

/** `env = [...]` of a `[sandbox]` table; names that are not variable names are reported and left out. */
export function envNames(table: TableReader): string[] {
  const names = table.stringArray('env') ?? [];
  const bad = names.filter((n) => !ENV_NAME.test(n));
  if (bad.length > 0) {
    table.findings.add(
      'bad-value',
      `\`env\` in [sandbox] holds ${bad.map((n) => `"${n}"`).join(', ')}, which ${bad.length === 1 ? 'is not a variable name' : 'are not variable names'}; list names such as env = ["CARGO_HOME"].`,
      table.at('env'),
    );
  }
  return names.filter((n) => ENV_NAME.test(n));
}

export function loadUserConfig(env: NodeJS.ProcessEnv = process.env): {
  config: UserConfig;
  diagnostics: Diagnostic[];
} {
  const file = userConfigPath(env);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { config: emptyUserConfig(), diagnostics: [] };
    const findings = new Findings(file);
    findings.add(
      'config-unreadable',
      `Your config ${file} cannot be read (${(err as Error).message}); fix its permissions or point LEVIATH_CONFIG elsewhere.`,
    );
    return { config: emptyUserConfig(), diagnostics: findings.list };
  }
  return parseUserConfig(text, file);
}
