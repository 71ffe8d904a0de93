/**
 * `lev doctor` (docs/reference/commands.md#lev-doctor): every check of a
 * setup, each run whatever the others found, in one table: the user config,
 * where state is kept, the Temporal CLI, the server, a worker's round trip, the provider keys, one
 * real inference, the codec key, the metrics address, the sandbox and each
 * MCP server. Exit 1 when any failed. Loaded only when `lev doctor` runs.
 */
import { accessSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { checkProviderScript } from '../blueprint/provider-scripts.js';
import { loadUserConfig } from '../blueprint/user-config.js';
import { BUILTIN_MODELS } from '../providers/builtin-models.js';
import { getProvider } from '../providers/index.js';
import { providerConfigured } from '../runtime/node/model-choice.js';
import { keyEnvOf, PROVIDER_PREFIXES, providerFacts, providersRanked } from '../shapes/providers.js';
import { globalProvidersDir, type StateDirs, stateDirs, userConfigPath } from '../state/locations.js';
import { blueprintLoader } from './blueprint-loader.js';
import { columnWidths } from './columns.js';

export interface DoctorFlags {
  model?: string;
  /** `--no-server`: no server, no worker, no run. */
  server: boolean;
  address: string;
  json?: boolean;
}

export interface Check {
  /** `config`, `state`, `temporal-cli`, `server`, `worker`, `provider-keys`, `model`, `inference`, `codec-key`, `metrics`, `sandbox`, `mcp:<name>`. */
  name: string;
  ok: boolean;
  /** Not checked (by `--no-server`, or because what it needs failed); never a failure by itself. */
  skipped?: true;
  detail: string;
}

/** The model to check: `--model`, else the first table row of the first provider whose key is set. */
export function doctorModel(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): { model: string; why: string } | undefined {
  if (flag) return { model: flag, why: 'from --model' };
  for (const provider of providersRanked('doctorRank')) {
    const row = Object.keys(BUILTIN_MODELS).find((ref) => ref.startsWith(`${provider}:`));
    if (row && providerConfigured(row, env)) return { model: row, why: `${provider}'s key is set` };
  }
  return undefined;
}

const PING = 'Reply with the single word PONG.';

async function inference(model: string, env: NodeJS.ProcessEnv): Promise<Check> {
  const started = Date.now();
  try {
    const res = await getProvider(model, env).infer({
      model,
      system: [{ text: 'You are a health check. Answer in one word.' }],
      messages: [{ role: 'user', content: PING }],
      tools: [],
      maxTokens: 64,
      meta: { runId: 'doctor', stage: 'ping', turn: 0, purpose: 'turn', attempt: 1 },
    });
    const reply = res.text.trim().replace(/\s+/g, ' ').slice(0, 60);
    return {
      name: 'inference',
      ok: true,
      detail: `${res.usage.promptTokens} in / ${res.usage.completionTokens} out, replied ${JSON.stringify(reply)} (${((Date.now() - started) / 1000).toFixed(1)}s)`,
    };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return {
      name: 'inference',
      ok: false,
      detail: `${typeof code === 'string' ? `[${code}] ` : ''}${(err as Error).message}`,
    };
  }
}

/** The round trip's model: a script registered in this process, which the in-process worker answers from. */
const SCRIPT = 'lev-doctor';
const ONE_STAGE = `[agent]
name = "doctor"

[stages.ping]
model = "scripted:${SCRIPT}"
max_iterations = 1
available_tools = []
`;

/** A check's failure as its detail: the code when it has one, and its sentence. */
function failed(name: string, err: unknown): Check {
  const code = (err as { code?: unknown }).code;
  return { name, ok: false, detail: `${typeof code === 'string' ? `[${code}] ` : ''}${(err as Error).message}` };
}

function skipped(name: string, detail: string): Check {
  return { name, ok: true, skipped: true, detail };
}

const SOURCES: Record<StateDirs['source'], string> = {
  LEVIATH_HOME: 'LEVIATH_HOME',
  XDG: 'XDG_DATA_HOME or ~/.local/share',
  legacy: 'an old .leviath/ found here',
};

/** Where data, config and cache are, and why; it fails when the data folder cannot be written. */
export function stateCheck(dirs: StateDirs, writable: (dir: string) => boolean): Check {
  const where = `data ${dirs.data} (${SOURCES[dirs.source]}), config ${dirs.configFile}, cache ${dirs.cache}`;
  if (!writable(dirs.data)) return { name: 'state', ok: false, detail: `${where}: the data folder cannot be written` };
  return { name: 'state', ok: true, detail: [where, ...dirs.notices].join('; ') };
}

/** A folder this process may create or write in: it, or the nearest folder above it that exists. */
function writableFolder(dir: string): boolean {
  let at = dir;
  while (!existsSync(at) && dirname(at) !== at) at = dirname(at);
  try {
    accessSync(at, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** The servers' own check: the embedded server is needed only at a local address. */
async function temporalCli(address: string, env: NodeJS.ProcessEnv): Promise<Check> {
  const { findTemporalCli } = await import('../devserver/temporal-cli.js');
  const { isLocal } = await import('./server-access.js');
  try {
    return { name: 'temporal-cli', ok: true, detail: await findTemporalCli({ env, install: false }) };
  } catch (err) {
    if (!isLocal(address))
      return skipped('temporal-cli', `not found, and not needed: ${address} is no embedded server's address`);
    return failed('temporal-cli', err);
  }
}

/** The provider keys set here; at least one, or a `--model` whose provider is configured. */
function providerKeys(flag: string | undefined, env: NodeJS.ProcessEnv): Check {
  // Local servers (ollama, vllm, lmstudio) and the scripted provider need no key.
  const needKeys = PROVIDER_PREFIXES.filter((p) => {
    const facts = providerFacts(p);
    return facts !== undefined && facts.wire !== 'scripted' && facts.dummyKey === undefined;
  });
  const keyed = needKeys.filter((p) => providerConfigured(`${p}:any`, env));
  if (keyed.length > 0) return { name: 'provider-keys', ok: true, detail: `configured: ${keyed.join(', ')}` };
  if (flag && providerConfigured(flag, env))
    return { name: 'provider-keys', ok: true, detail: `none needed for ${flag}` };
  return {
    name: 'provider-keys',
    ok: false,
    detail: `no provider key is set (${providersRanked('doctorRank').map(keyEnvOf).join(', ')}); set one, or pass --model for a local server`,
  };
}

/** Each script provider of the config folder (docs/reference/script-providers.md), compiled and checked. */
function scriptProviders(env: NodeJS.ProcessEnv): Check[] {
  const dir = globalProvidersDir(env);
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.rhai'));
  } catch {
    return [];
  }
  return files.sort().map((f) => {
    const name = `provider:${f.slice(0, -'.rhai'.length)}`;
    try {
      const checked = checkProviderScript(
        f.slice(0, -'.rhai'.length),
        join(dir, f),
        readFileSync(join(dir, f), 'utf8'),
      );
      return checked.ok
        ? { name, ok: true, detail: `${join(dir, f)} defines initialize and inference` }
        : { name, ok: false, detail: `[${checked.code}] ${checked.message}` };
    } catch (err) {
      return failed(name, err);
    }
  });
}

async function codecKey(env: NodeJS.ProcessEnv): Promise<Check> {
  const { configuredKeyFile, configuredKeyring } = await import('../codec/keys.js');
  try {
    const file = configuredKeyFile(env);
    if (!configuredKeyring(env) || !file) return { name: 'codec-key', ok: true, detail: 'none: payloads in the clear' };
    return { name: 'codec-key', ok: true, detail: `${file} holds a usable key` };
  } catch (err) {
    return failed('codec-key', err);
  }
}

async function metrics(env: NodeJS.ProcessEnv): Promise<Check> {
  const { metricsAddress } = await import('./options.js');
  try {
    const address = metricsAddress(undefined, env);
    return { name: 'metrics', ok: true, detail: address ? `workers serve metrics at ${address}` : 'none served' };
  } catch (err) {
    return failed('metrics', err);
  }
}

async function sandbox(env: NodeJS.ProcessEnv): Promise<Check> {
  const { probeSandbox, SANDBOX_OFF_WARNING, SANDBOX_UNAVAILABLE, sandboxUnavailableMessage } = await import(
    '../tools/sandbox.js'
  );
  if (loadUserConfig(env).config.sandbox.kind === 'none')
    return { name: 'sandbox', ok: true, detail: SANDBOX_OFF_WARNING };
  const probe = probeSandbox(env);
  return probe.ok
    ? { name: 'sandbox', ok: true, detail: 'bubblewrap builds the sandbox' }
    : { name: 'sandbox', ok: false, detail: `[${SANDBOX_UNAVAILABLE}] ${sandboxUnavailableMessage(probe.reason)}` };
}

/** Each configured MCP server, reached (or started) and asked for its tools. */
async function mcpServers(env: NodeJS.ProcessEnv): Promise<Check[]> {
  const { config } = loadUserConfig(env);
  if (config.mcpServers.length === 0) return [];
  const { expandServer } = await import('../blueprint/mcp-servers.js');
  const { discoverCatalog } = await import('../runtime/node/mcp-tools.js');
  const { workerPool } = await import('../mcp/pool.js');
  const place = {
    workdir: process.cwd(),
    sandbox: { kind: config.sandbox.kind, env: config.sandbox.env, readRoots: [] },
  };
  const checks: Check[] = [];
  try {
    for (const server of config.mcpServers) {
      const name = `mcp:${server.name}`;
      try {
        const catalog = await discoverCatalog([expandServer(server, env)], place);
        const down = catalog.unreachable[0];
        checks.push(
          down
            ? { name, ok: false, detail: `[mcp-unavailable] ${down.reason}` }
            : { name, ok: true, detail: `${catalog.tools.length} tool${catalog.tools.length === 1 ? '' : 's'}` },
        );
      } catch (err) {
        checks.push(failed(name, err));
      }
    }
  } finally {
    await workerPool.closeAll();
  }
  return checks;
}

/** The server (the embedded one started when none answers locally, as `lev run` does) and a one-stage run through it and a worker. */
async function serverAndWorker(address: string, say: (line: string) => void): Promise<Check[]> {
  const started = Date.now();
  const { Client, Connection } = await import('@temporalio/client');
  const { ensureServer } = await import('./server-access.js');
  const { connectOptions, serverSettings } = await import('../worker/connection.js');
  const { installRuntime, createWorker, bundleFromEnv } = await import('../worker/create-worker.js');
  const { createToolWorker } = await import('../worker/tool-worker.js');
  const { startRun } = await import('../worker/run-client.js');
  const { stopHosted } = await import('./follow-terminal.js');
  const { DEFAULT_RUN_OPTIONS } = await import('../runtime/types.js');
  const { toolQueueName } = await import('../runtime/node/tool-queue-name.js');
  const { registerScript } = await import('../providers/index.js');
  const hosted: import('./follow-terminal.js').Hosted = { workers: [] };
  const settings = serverSettings({ address });
  let server: Check;
  try {
    hosted.server = await ensureServer(settings, say);
    server = {
      name: 'server',
      ok: true,
      detail: hosted.server
        ? `started the embedded dev server at ${address}`
        : `${address} answers, namespace "${settings.namespace}"`,
    };
  } catch (err) {
    return [failed('server', err), skipped('worker', 'not checked: no server')];
  }
  registerScript(SCRIPT, { turns: [{ text: 'PONG' }] });
  const workdir = mkdtempSync(join(tmpdir(), 'lev-doctor-'));
  try {
    const connection = await Connection.connect(connectOptions(settings));
    installRuntime('ERROR');
    const taskQueue = `lev-doctor-${process.pid}`;
    // The check's workers take its run whatever deployment the environment names (docs/reference/operating.md#safe-deploys).
    const unversioned = { deployment: '' };
    const main = await createWorker({ address, taskQueue, deployment: unversioned, ...bundleFromEnv() });
    hosted.workers.push({ ...main, running: main.worker.run() });
    const tools = await createToolWorker({ address, workdir, deployment: unversioned });
    hosted.workers.push({ ...tools, running: tools.worker.run() });
    const loaded = blueprintLoader().loadText(ONE_STAGE, join(workdir, 'agent.toml'), { workdir });
    if (!loaded.blueprint) throw new Error('the built-in check blueprint does not load');
    const client = new Client({ connection, namespace: settings.namespace });
    const handle = await startRun(
      client,
      {
        blueprint: loaded.blueprint,
        caller: {},
        workdir,
        options: { ...DEFAULT_RUN_OPTIONS, unattended: true, toolTaskQueue: toolQueueName(workdir) },
      },
      { taskQueue },
    );
    const result = (await handle.result()) as { status: string; error?: string };
    await connection.close();
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    return [
      server,
      result.status === 'completed'
        ? { name: 'worker', ok: true, detail: `run ${handle.workflowId} completed on ${address} (${secs}s)` }
        : {
            name: 'worker',
            ok: false,
            detail: `run ${handle.workflowId} ended ${result.status}: ${result.error ?? ''}`,
          },
    ];
  } catch (err) {
    return [server, failed('worker', err)];
  } finally {
    await stopHosted(hosted);
    rmSync(workdir, { recursive: true, force: true });
  }
}

/** Runs every check; one that needs another's success is skipped, with why, when that one failed. */
export async function runChecks(
  flags: DoctorFlags,
  env: NodeJS.ProcessEnv,
  say: (line: string) => void,
): Promise<Check[]> {
  const checks: Check[] = [];
  const { diagnostics } = loadUserConfig(env);
  const errors = diagnostics.filter((d) => d.severity === 'error');
  checks.push(
    errors.length > 0
      ? { name: 'config', ok: false, detail: errors.map((d) => `${d.message} [${d.code}]`).join('; ') }
      : { name: 'config', ok: true, detail: `${userConfigPath(env)} parses (or is absent)` },
    stateCheck(stateDirs(env), writableFolder),
  );
  checks.push(await temporalCli(flags.address, env));
  if (flags.server) checks.push(...(await serverAndWorker(flags.address, say)));
  else checks.push(skipped('server', 'not checked (--no-server)'), skipped('worker', 'not checked (--no-server)'));
  checks.push(providerKeys(flags.model, env), ...scriptProviders(env));
  const chosen = doctorModel(flags.model, env);
  const configured = chosen !== undefined && providerConfigured(chosen.model, env);
  checks.push(
    !chosen
      ? skipped('model', 'no model to check: no provider key is set and no --model given')
      : {
          name: 'model',
          ok: configured,
          detail: configured
            ? `${chosen.model} (${chosen.why})`
            : `${chosen.model}: its provider's API key is not set here; set it, or pass --model`,
        },
  );
  checks.push(
    chosen && configured ? await inference(chosen.model, env) : skipped('inference', 'not checked: no usable model'),
  );
  checks.push(await codecKey(env), await metrics(env), await sandbox(env), ...(await mcpServers(env)));
  return checks;
}

/** The table `lev doctor` prints: one row per check. */
export function doctorTable(checks: Check[]): string {
  const rows = checks.map((c) => [c.name, c.skipped ? 'SKIP' : c.ok ? 'OK' : 'FAIL', c.detail]);
  const widths = columnWidths(['check', 'status'], rows);
  const line = (cells: string[]) =>
    `  ${(cells[0] ?? '').padEnd(widths[0] ?? 0)}  ${(cells[1] ?? '').padEnd(widths[1] ?? 0)}  ${cells[2] ?? ''}`.trimEnd();
  const failures = checks.filter((c) => !c.ok).length;
  return `${[line(['check', 'status', 'detail']), ...rows.map(line)].join('\n')}\n\n${failures === 0 ? 'doctor passed' : `doctor failed: ${failures} check${failures === 1 ? '' : 's'} failed`}\n`;
}

export async function doctorCommand(flags: DoctorFlags): Promise<void> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const checks = await runChecks(flags, process.env, say);
  const passed = checks.every((c) => c.ok);
  process.stdout.write(flags.json ? `${JSON.stringify({ checks, passed })}\n` : doctorTable(checks));
  process.exitCode = passed ? 0 : 1;
  // The worker's native runtime keeps the process alive after the round trip.
  if (flags.server) process.exit(process.exitCode);
}
