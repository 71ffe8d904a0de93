/**
 * `lev doctor` (docs/reference/commands.md#lev-doctor): four checks in
 * order, the first failure stopping the rest: the user config parses, a
 * model is chosen whose provider has its key, one real inference reaches
 * it, and a one-stage run goes through a Temporal server and a worker.
 * Loaded only when `lev doctor` runs.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadUserConfig, userConfigPath } from '../blueprint/user-config.js';
import { BUILTIN_MODELS } from '../providers/builtin-models.js';
import { getProvider } from '../providers/index.js';
import { providerConfigured } from '../runtime/node/model-choice.js';
import { blueprintLoader } from './blueprint-loader.js';

export interface DoctorFlags {
  model?: string;
  /** Stop after the inference: no server, no worker, no run. */
  server: boolean;
  address: string;
  json?: boolean;
}

export interface Check {
  name: 'config' | 'model' | 'inference' | 'server';
  ok: boolean;
  detail: string;
}

/** Which providers are tried for a default model, in order. */
const PREFERRED = ['anthropic', 'openai', 'google', 'openrouter'];

/** The model to check: `--model`, else the first table row of the first provider whose key is set. */
export function doctorModel(
  flag: string | undefined,
  env: NodeJS.ProcessEnv,
): { model: string; why: string } | undefined {
  if (flag) return { model: flag, why: 'from --model' };
  for (const provider of PREFERRED) {
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

/** A one-stage run on the scripted provider through the server and an in-process worker. */
async function roundTrip(address: string, say: (line: string) => void): Promise<Check> {
  const started = Date.now();
  const { Client, Connection } = await import('@temporalio/client');
  const { ensureServer } = await import('./server-access.js');
  const { installRuntime, createWorker, bundleFromEnv } = await import('../worker/create-worker.js');
  const { createToolWorker } = await import('../worker/tool-worker.js');
  const { startRun } = await import('../worker/run-client.js');
  const { stopHosted } = await import('./follow-terminal.js');
  const { DEFAULT_RUN_OPTIONS } = await import('../runtime/types.js');
  const { toolQueueName } = await import('../runtime/node/tool-queue-name.js');
  const { tlsOption } = await import('../worker/tls.js');
  const { registerScript } = await import('../providers/index.js');
  registerScript(SCRIPT, { turns: [{ text: 'PONG' }] });
  const workdir = mkdtempSync(join(tmpdir(), 'lev-doctor-'));
  const hosted: import('./follow-terminal.js').Hosted = { workers: [] };
  try {
    hosted.server = await ensureServer({ address, namespace: 'default' }, say);
    const connection = await Connection.connect({ address, ...tlsOption() });
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
    const client = new Client({ connection });
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
    return result.status === 'completed'
      ? { name: 'server', ok: true, detail: `run ${handle.workflowId} completed on ${address} (${secs}s)` }
      : { name: 'server', ok: false, detail: `run ${handle.workflowId} ended ${result.status}: ${result.error ?? ''}` };
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    return {
      name: 'server',
      ok: false,
      detail: `${typeof code === 'string' ? `[${code}] ` : ''}${(err as Error).message}`,
    };
  } finally {
    await stopHosted(hosted);
    rmSync(workdir, { recursive: true, force: true });
  }
}

/** Runs the checks in order and stops at the first failure. */
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
  );
  if (errors.length > 0) return checks;
  const chosen = doctorModel(flags.model, env);
  if (!chosen) {
    checks.push({
      name: 'model',
      ok: false,
      detail: `no provider key is set (${PREFERRED.map((p) => `${p.toUpperCase()}_API_KEY`).join(', ')}); set one, or pass --model for a local server`,
    });
    return checks;
  }
  const { model, why } = chosen;
  const configured = providerConfigured(model, env);
  checks.push({
    name: 'model',
    ok: configured,
    detail: configured
      ? `${model} (${why})`
      : `${model}: its provider's API key is not set here; set it, or pass --model`,
  });
  if (!configured) return checks;
  const called = await inference(model, env);
  checks.push(called);
  if (!called.ok || !flags.server) return checks;
  checks.push(await roundTrip(flags.address, say));
  return checks;
}

export async function doctorCommand(flags: DoctorFlags): Promise<void> {
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const checks = await runChecks(flags, process.env, say);
  const passed = checks.every((c) => c.ok) && checks.length === (flags.server ? 4 : 3);
  if (flags.json) process.stdout.write(`${JSON.stringify({ checks, passed })}\n`);
  else {
    for (const c of checks) process.stdout.write(`  ${c.name.padEnd(10)} ${c.ok ? 'OK  ' : 'FAIL'}  ${c.detail}\n`);
    process.stdout.write(passed ? '\ndoctor passed\n' : '\ndoctor failed\n');
  }
  process.exitCode = passed ? 0 : 1;
  // The worker's native runtime keeps the process alive after the round trip.
  if (flags.server) process.exit(process.exitCode);
}
