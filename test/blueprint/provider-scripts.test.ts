/**
 * Script providers at load (docs/reference/script-providers.md): a model whose
 * provider is no built-in one is the script of the providers folder, read,
 * checked and carried by the blueprint; `[model_providers.<name>]` of the
 * user config names its file and holds its settings.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { emptyUserConfig, parseUserConfig, scriptProviderSettings } from '../../src/blueprint/user-config.js';
import { chooseModel } from '../../src/runtime/node/model-choice.js';
import { globalProvidersDir } from '../../src/state/locations.js';
import { codesOf, errorsOf, loadToml } from './helpers.js';

const GROQ = `// @provider groq
// @max_context_tokens 131_072
// @max_output_tokens 32768
fn initialize(config) { #{ key: config.api_key } }
fn inference(state, request) { #{ content: "hi" } }
`;

function folder(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'lev-providers-'));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}

const STAGE = `[stages.plan.model]
provider = "groq"
model = "llama-3.3-70b-versatile"
`;

describe('a model of a script provider', () => {
  it("carries the provider's script, and gives its models the window the script declares", () => {
    const providersDir = folder({ 'groq.rhai': GROQ });
    const r = loadToml(STAGE, {}, { providersDir });
    expect(errorsOf(r)).toEqual([]);
    expect(codesOf(r)).not.toContain('unknown-model-window');
    expect(r.blueprint?.stages[0]?.model).toBe('groq:llama-3.3-70b-versatile');
    expect(r.blueprint?.providerScripts).toEqual([
      {
        name: 'groq',
        path: join(providersDir, 'groq.rhai'),
        source: GROQ,
        meta: { provider: 'groq', max_context_tokens: '131_072', max_output_tokens: '32768' },
      },
    ]);
    expect(r.blueprint?.models['groq:llama-3.3-70b-versatile']).toEqual({
      contextWindow: 131072,
      maxOutputTokens: 32768,
    });
  });

  it('reads the file [model_providers.<name>] script names', () => {
    const providersDir = folder({ 'groq-v2.rhai': GROQ });
    const userConfig = parseUserConfig('[model_providers.groq]\nscript = "groq-v2"\n', 'config.toml').config;
    const r = loadToml(STAGE, {}, { providersDir, userConfig });
    expect(r.blueprint?.providerScripts?.map((p) => p.path)).toEqual([join(providersDir, 'groq-v2.rhai')]);
  });

  it('warns when there is no script, as the original skips such a provider, and carries nothing', () => {
    const r = loadToml(STAGE, {}, { providersDir: folder({}) });
    expect(codesOf(r)).toContain('provider-script-missing');
    const d = r.diagnostics.find((x) => x.code === 'provider-script-missing');
    expect(d?.severity).toBe('warning');
    expect(d?.path).toBe('stages.plan.model');
    expect(r.blueprint?.providerScripts).toBeUndefined();
  });

  it('refuses a script that does not compile, pointing at its file and line', () => {
    const providersDir = folder({
      'groq.rhai': 'fn initialize(config) { #{} }\n\nfn inference(state, request) {\n  let = 1;\n}',
    });
    const r = loadToml(STAGE, {}, { providersDir });
    const d = r.diagnostics.find((x) => x.code === 'provider-script-syntax');
    expect(d).toMatchObject({ severity: 'error', file: join(providersDir, 'groq.rhai'), line: 4 });
    expect(r.blueprint).toBeUndefined();
  });

  it('refuses a script without initialize(config) and inference(state, request), naming what is missing', () => {
    const r = loadToml(STAGE, {}, { providersDir: folder({ 'groq.rhai': 'fn inference(request) { #{} }' }) });
    const d = r.diagnostics.find((x) => x.code === 'provider-script-contract');
    expect(d?.message).toContain('`fn initialize(config)`');
    expect(d?.message).toContain('`fn inference(state, request)`');
  });

  it('reads no script for a built-in provider, and finds a script of a fallback chain and of [compaction]', () => {
    const providersDir = folder({ 'groq.rhai': GROQ, 'local.rhai': GROQ });
    expect(loadToml('[stages.a]\nmodel = "openai:gpt-4o"', {}, { providersDir }).blueprint?.providerScripts).toBe(
      undefined,
    );
    const r = loadToml(
      `[compaction]\nmodel = "local:tiny"\n[stages.a.model]\nmodels = [{ provider = "openai", model = "gpt-4o" }, { provider = "groq", model = "llama" }]`,
      {},
      { providersDir },
    );
    expect(r.blueprint?.providerScripts?.map((p) => p.name)).toEqual(['groq', 'local']);
  });

  it('counts as configured when a chain is chosen from: its script needs no key', () => {
    const providersDir = folder({ 'groq.rhai': GROQ });
    const r = loadToml(
      '[stages.a.model]\nmodels = [{ provider = "openai", model = "gpt-4o" }, { provider = "groq", model = "llama" }]',
      {},
      { providersDir },
    );
    const bp = r.blueprint;
    if (!bp) throw new Error(errorsOf(r).join('\n'));
    expect(chooseModel(bp, 'a', [], {})).toBe('groq:llama');
    expect(chooseModel(bp, 'a', [], { OPENAI_API_KEY: 'sk-1' })).toBe('openai:gpt-4o');
  });

  it('takes temperature and max_tokens, and refuses a model parameter its request has no place for', () => {
    const providersDir = folder({ 'groq.rhai': GROQ });
    const ok = loadToml(`${STAGE}parameters = { temperature = 0.2, max_tokens = 500 }\n`, {}, { providersDir });
    expect(errorsOf(ok)).toEqual([]);
    const r = loadToml(`${STAGE}parameters = { top_p = 0.9 }\n`, {}, { providersDir });
    const d = r.diagnostics.find((x) => x.code === 'model-parameter-unsupported');
    expect(d?.message).toContain('groq is a script provider, whose request carries only temperature and max_tokens');
  });

  it('lives in providers/ of the config folder', () => {
    expect(globalProvidersDir({ LEVIATH_HOME: '/srv/lev' })).toBe('/srv/lev/providers');
    expect(globalProvidersDir({ HOME: '/home/ada' })).toBe('/home/ada/.config/leviath/providers');
  });
});

describe('[model_providers] in the user config', () => {
  it('hands every key but script and rate_limit to the script, and holds rate_limit like [rate_limits]', () => {
    const { config, diagnostics } = parseUserConfig(
      `[model_providers.groq]
script = "groq.rhai"
api_key = "gsk-1"
base_url = "https://api.groq.com/openai/v1"
region = "eu"
[model_providers.groq.rate_limit]
requests_per_minute = 30
tokens_per_minute = 100000
[model_providers.local]
base_url = "http://localhost:9000"
[model_providers.local.rate_limit]
requests_per_minute = 5
[rate_limits.local]
max_concurrent = 2
`,
      'config.toml',
    );
    expect(diagnostics).toEqual([]);
    expect(config.modelProviders.groq).toEqual({
      script: 'groq',
      settings: { api_key: 'gsk-1', base_url: 'https://api.groq.com/openai/v1', region: 'eu' },
    });
    expect(scriptProviderSettings(config)).toEqual({
      groq: { api_key: 'gsk-1', base_url: 'https://api.groq.com/openai/v1', region: 'eu' },
      local: { base_url: 'http://localhost:9000' },
    });
    expect(config.rateLimits.groq).toEqual({ requestsPerMinute: 30, tokensPerMinute: 100000 });
    // [rate_limits.local] wins over the provider's own rate_limit.
    expect(config.rateLimits.local).toEqual({ maxConcurrent: 2 });
  });

  it('refuses a script that is no file name, and a rate_limit key it does not read', () => {
    const { diagnostics } = parseUserConfig(
      '[model_providers.groq]\nscript = "../x"\n[model_providers.groq.rate_limit]\nper_hour = 3\n',
      'config.toml',
    );
    expect(diagnostics.map((d) => d.code).sort()).toEqual(['bad-value', 'unknown-key']);
    expect(emptyUserConfig().modelProviders).toEqual({});
  });
});
