import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { limitsFor } from '../../src/blueprint/rate-limits-table.js';
import { loadUserConfig, parseUserConfig } from '../../src/blueprint/user-config.js';
import { codesOf, loadToml } from './helpers.js';

describe('user config', () => {
  it('reads models, security grants and per-agent grants, ignoring tables it does not own', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lev-cfg-'));
    const file = join(dir, 'config.toml');
    writeFileSync(
      file,
      `[models."ollama:llama3.3"]
context_window = 131072
[security]
read_paths = ["/srv/shared"]
allow_seed_commands = false
[agent_read_paths.researcher]
allow = ["~/papers"]
[providers.openai]
base_url = "http://localhost:8080"
`,
    );
    const { config, diagnostics } = loadUserConfig({ LEVIATH_CONFIG: file });
    expect(diagnostics).toEqual([]);
    expect(config.models).toEqual({ 'ollama:llama3.3': { contextWindow: 131072, maxOutputTokens: 4096 } });
    expect(config.security).toEqual({
      readPaths: ['/srv/shared'],
      allowBlueprintReadPaths: false,
      allowSeedCommands: false,
    });
    expect(config.agentReadPaths).toEqual({ researcher: ['~/papers'] });
  });

  it('reads [tool_script_permissions], refusing a misspelt function or setting', () => {
    const ok = parseUserConfig('[tool_script_permissions]\nshell = "deny"\nread_file = "allow"\n', '/cfg.toml');
    expect(ok.diagnostics).toEqual([]);
    expect(ok.config.toolScriptPermissions).toEqual({ shell: 'deny', read_file: 'allow' });
    const bad = parseUserConfig('[tool_script_permissions]\nshel = "deny"\nhttp_get = "never"\n', '/cfg.toml');
    expect(bad.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['unknown-key', 2],
      ['bad-value', 3],
    ]);
    expect(bad.config.toolScriptPermissions).toEqual({});
  });

  it('reports its own mistakes with positions', () => {
    const bad = parseUserConfig('[security]\nread_path = ["/x"]\n[models."a:b"]\nencoding = "utf8"\n', '/cfg.toml');
    expect(bad.diagnostics.map((d) => [d.code, d.line])).toEqual([
      ['unknown-key', 2],
      ['bad-model', 3],
      ['bad-encoding', 4],
    ]);
    expect(parseUserConfig('[security', '/cfg.toml').diagnostics[0]).toMatchObject({ code: 'toml-syntax', line: 1 });
  });

  it('grants a blueprint read path to the named agent, and turns off command seeds', () => {
    const parsed = parseUserConfig(
      '[agent_read_paths.reader]\nallow = ["/opt/data"]\n[security]\nallow_seed_commands = false\n',
      '/cfg.toml',
    );
    const toml = '[agent]\nname = "reader"\n[read_paths]\nallow = ["/opt/data"]';
    expect(codesOf(loadToml(toml))).toContain('read-paths-not-granted');
    const granted = loadToml(toml, {}, { userConfig: parsed.config });
    expect(codesOf(granted)).toEqual(['read-paths-declared']);
    expect(granted.blueprint?.security.allowSeedCommands).toBe(false);
    expect(granted.diagnostics[0]?.line).toBe(4);
  });
});

describe('[rate_limits] in the user config', () => {
  it('reads the tables of providers and of models, with the original keys and max_concurrent', () => {
    const { config, diagnostics } = parseUserConfig(
      `[rate_limits.anthropic]
requests_per_minute = 50
tokens_per_minute = 40000
[rate_limits.openai]
max_concurrent = 4
[rate_limits."openai:gpt-4o"]
max_concurrent = 2
`,
      'config.toml',
    );
    expect(diagnostics).toEqual([]);
    expect(config.rateLimits).toEqual({
      anthropic: { requestsPerMinute: 50, tokensPerMinute: 40000 },
      openai: { maxConcurrent: 4 },
      'openai:gpt-4o': { maxConcurrent: 2 },
    });
    expect(limitsFor(config.rateLimits, 'openai:gpt-4o')).toEqual({
      openai: { maxConcurrent: 4 },
      'openai:gpt-4o': { maxConcurrent: 2 },
    });
    expect(limitsFor(config.rateLimits, 'openai:gpt-4o-mini')).toEqual({ openai: { maxConcurrent: 4 } });
    expect(limitsFor(config.rateLimits, 'ollama:llama3.1')).toEqual({});
  });

  it('reports an unknown key or a limit that is not a positive integer, and leaves it out', () => {
    const { config, diagnostics } = parseUserConfig(
      '[rate_limits.openai]\nmax_concurent = 4\nrequests_per_minute = 0\n',
      'config.toml',
    );
    expect(diagnostics.map((d) => d.code)).toEqual(['unknown-key', 'bad-size']);
    expect(diagnostics[0]?.message).toContain('did you mean "max_concurrent"');
    expect(config.rateLimits).toEqual({});
  });
});
