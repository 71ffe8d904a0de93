/**
 * A provider written as a Rhai script (docs/reference/script-providers.md):
 * `providers/<name>.rhai` of the config folder, carried by the blueprint.
 * Each inference runs `initialize(config)` (offline), then
 * `inference(state, request)`; an HTTP call halts the script, is performed
 * here, and the script runs again from the start with the answers so far, as
 * a script tool's host calls are (src/tools/script-run.ts). Everything around
 * the call (retries, rate limits, outage waiting, token counting) stays the
 * runtime's, as for every provider: this class only translates.
 */
import { compileOnce, DEFAULT_LIMITS, type RhaiError, type RhaiLimits, type RhaiScript } from '../rhai/index.js';
import type { ProviderScriptDef } from '../shapes/frozen-blueprint.js';
import type { CallContext } from './classify.js';
import type { InferenceRequest, InferenceResponse, InferOptions, ModelProvider } from './provider.js';
import { ProviderError } from './provider-errors.js';
import { responseOf, scriptRequest, thrownFailure } from './script-contract.js';
import {
  networkFunctions,
  type ProviderHostAnswer,
  type ProviderHostRequest,
  performRequest,
  providerHelpers,
} from './script-provider-host.js';

/** Requests one inference may make. */
export const MAX_PROVIDER_REQUESTS = 16;

/**
 * The interpreter's limits for a provider script: a prompt of a large window, written as one
 * JSON body, is several megabytes, and building it walks every message.
 */
export const PROVIDER_LIMITS: RhaiLimits = {
  ...DEFAULT_LIMITS,
  maxOperations: 2_000_000,
  maxStringSize: 16_000_000,
};

export interface ScriptProviderOptions {
  def: ProviderScriptDef;
  /** `[model_providers.<name>]` of the user config, less `script` and `rate_limit`. */
  settings: Record<string, unknown>;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
}

export class ScriptProvider implements ModelProvider {
  readonly name: string;
  readonly endpoint?: string;

  constructor(private readonly opts: ScriptProviderOptions) {
    this.name = opts.def.name;
    const base = opts.settings.base_url;
    if (typeof base === 'string') this.endpoint = base;
  }

  async infer(req: InferenceRequest, opts: InferOptions = {}): Promise<InferenceResponse> {
    const { def, settings, env, timeoutMs } = this.opts;
    // The key it was given and the variables it read, removed from failure messages.
    const secrets = new Set<string>();
    if (typeof settings.api_key === 'string') secrets.add(settings.api_key);
    const ctx = (): CallContext => ({
      provider: def.name,
      model: req.model.slice(req.model.indexOf(':') + 1),
      baseURL: this.endpoint ?? def.path,
      timeoutMs,
      secrets: [...secrets],
    });
    const compiled = compileOnce(def.source, def.path);
    if (!compiled.ok) throw this.#failure(compiled.error, ctx());
    const script = compiled.script;
    const helpers = providerHelpers(env, secrets);
    const init = script.call('initialize', [settings], PROVIDER_LIMITS, {
      ...helpers,
      ...networkFunctions([], { next: 0 }, true),
    });
    if (!init.ok) throw this.#failure(init.error, ctx());
    const { api_key: _key, base_url: _base, ...extra } = settings;
    const request = scriptRequest(req, extra, timeoutMs);
    const journal: ProviderHostAnswer[] = [];
    for (;;) {
      const run = this.#inference(script, init.value, request, journal, helpers);
      if (run.ok) {
        const response = responseOf(run.value, req.meta.turn);
        if (response) return response;
        throw new ProviderError(
          'script-failed',
          `The provider script ${def.path} returned ${run.value === undefined ? '()' : typeof run.value} from inference, not a map #{ content, tool_calls, tokens_used, finish_reason }; fix the script.`,
          { provider: def.name },
        );
      }
      if (run.error.code !== 'rhai-halted') throw this.#failure(run.error, ctx());
      if (journal.length >= MAX_PROVIDER_REQUESTS)
        throw new ProviderError(
          'script-failed',
          `The provider script ${def.path} made more than ${MAX_PROVIDER_REQUESTS} requests in one inference; make it send fewer.`,
          { provider: def.name },
        );
      opts.signal?.throwIfAborted();
      journal.push(await performRequest(run.error.payload as ProviderHostRequest, timeoutMs, opts.signal));
    }
  }

  #inference(
    script: RhaiScript,
    state: unknown,
    request: Record<string, unknown>,
    journal: readonly ProviderHostAnswer[],
    helpers: ReturnType<typeof providerHelpers>,
  ) {
    return script.call('inference', [state, request], PROVIDER_LIMITS, {
      ...helpers,
      ...networkFunctions(journal, { next: 0 }, false),
    });
  }

  /** A script's error as the provider failure the runtime acts on. */
  #failure(error: RhaiError, ctx: CallContext): ProviderError {
    if (error.thrown !== undefined) return thrownFailure(error.thrown, error.message, ctx);
    const what = error.code === 'rhai-limit' ? 'was stopped at a limit' : 'failed';
    return new ProviderError(
      'script-failed',
      `The provider script of ${ctx.provider} ${what}: ${error.message}. Fix the script.`,
      { provider: ctx.provider },
    );
  }
}
