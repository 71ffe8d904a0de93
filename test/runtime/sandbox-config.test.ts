import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseUserConfig } from '../../src/blueprint/user-config.js';
import { checkSandbox, runsCommands, sandboxPolicy, workerSandboxNote } from '../../src/runtime/node/tool-context.js';
import { NO_READ_PATHS } from '../../src/tools/read-paths.js';
import { errorsOf, loadToml } from '../blueprint/helpers.js';

function configFile(text: string): NodeJS.ProcessEnv {
  const file = join(mkdtempSync(join(tmpdir(), 'lev-sandbox-cfg-')), 'config.toml');
  writeFileSync(file, text);
  return { LEVIATH_CONFIG: file, PATH: process.env.PATH };
}

const SHELL_STAGE = '[stages.main]\navailable_tools = ["shell"]\n';

describe('[sandbox] in the user config', () => {
  it('defaults to the namespace sandbox and reads kind and env', () => {
    expect(parseUserConfig('', 'c.toml').config.sandbox).toEqual({ kind: 'namespace', env: [], network: false });
    const { config, diagnostics } = parseUserConfig('[sandbox]\nkind = "none"\nenv = ["CARGO_HOME"]\n', 'c.toml');
    expect(diagnostics).toEqual([]);
    expect(config.sandbox).toEqual({ kind: 'none', env: ['CARGO_HOME'], network: false });
  });

  it('reports an unknown kind, an unknown key and a name that is no variable', () => {
    const { config, diagnostics } = parseUserConfig(
      '[sandbox]\nkind = "chroot"\nenv = ["OK", "NOT OK"]\nnetworks = true\n',
      'c.toml',
    );
    expect(diagnostics.map((d) => d.code).sort()).toEqual(['bad-value', 'bad-value', 'unknown-key']);
    expect(config.sandbox).toEqual({ kind: 'namespace', env: ['OK'], network: false });
  });
});

describe('[sandbox] in a blueprint', () => {
  it('may name variables, never the kind', () => {
    const named = loadToml('[sandbox]\nenv = ["CARGO_HOME"]\n');
    expect(named.blueprint?.sandbox).toEqual({ env: ['CARGO_HOME'] });
    // The original's keys load (its blueprints may ask for a sandbox), but only the user's config decides it.
    const weakened = loadToml('[sandbox]\nkind = "none"\nnetwork = true\n');
    expect(errorsOf(weakened)).toEqual([]);
    const warnings = weakened.diagnostics.filter((d) => d.code === 'unsupported-feature').map((d) => d.message);
    expect(warnings).toEqual([
      expect.stringMatching(/a blueprint cannot choose the sandbox; tools run in the one your own config sets/),
    ]);
    // A blueprint may ask for the network; without the user's `[sandbox] network = true` it stays shut.
    expect(weakened.blueprint?.sandbox).toEqual({ env: [], network: true });
    const policy = sandboxPolicy(weakened.blueprint!, NO_READ_PATHS, configFile(''));
    expect(policy.kind).toBe('namespace');
    expect(policy.network).toBeFalsy();
    expect(errorsOf(loadToml('[sandbox]\nknd = "none"\n'))[0]).toMatch(/^unknown-key: .*did you mean "kind"/);
  });

  it("passes a blueprint's credential-like names only when the user's config names them too", () => {
    const bp = loadToml('[sandbox]\nenv = ["CARGO_HOME", "OPENAI_API_KEY", "GITHUB_TOKEN"]\n').blueprint!;
    expect(sandboxPolicy(bp, NO_READ_PATHS, configFile('')).env).toEqual(['CARGO_HOME']);
    const granted = configFile('[sandbox]\nenv = ["GITHUB_TOKEN"]\n');
    expect(sandboxPolicy(bp, NO_READ_PATHS, granted)).toEqual({
      kind: 'namespace',
      env: ['GITHUB_TOKEN', 'CARGO_HOME'],
      readRoots: [],
    });
  });
});

describe('before a run starts', () => {
  it('knows which blueprints set out to run commands', () => {
    expect(runsCommands(loadToml(SHELL_STAGE).blueprint!)).toBe(true);
    expect(runsCommands(loadToml('[stages.main]\navailable_tools = ["read_file"]\n').blueprint!)).toBe(false);
    const seeded = loadToml('[context.regions]\nlog = { kind = "pinned", seed = { command = "git log" } }\n');
    expect(runsCommands(seeded.blueprint!)).toBe(true);
    // Command seeds switched off for the run do not need the sandbox.
    expect(runsCommands(seeded.blueprint!, true)).toBe(false);
  });

  it('refuses a blueprint that runs commands when bubblewrap is missing, with how to fix it', () => {
    const bp = loadToml(SHELL_STAGE).blueprint!;
    const noBwrap = { ...configFile(''), PATH: tmpdir() };
    expect(() => checkSandbox(bp, noBwrap, () => {})).toThrow(
      expect.objectContaining({
        code: 'sandbox-unavailable',
        message: expect.stringContaining('apt-get install bubblewrap'),
      }),
    );
    const readOnly = loadToml('[stages.main]\navailable_tools = ["read_file"]\n').blueprint!;
    expect(() => checkSandbox(readOnly, noBwrap, () => {})).not.toThrow();
  });

  it('a worker says at start when commands will run unsandboxed or be refused', () => {
    expect(workerSandboxNote(configFile(''))).toBeUndefined();
    expect(workerSandboxNote(configFile('[sandbox]\nkind = "none"\n'))).toContain('run without a sandbox');
    expect(workerSandboxNote({ ...configFile(''), PATH: tmpdir() })).toContain('every command is refused');
  });

  it('warns when the user turned the sandbox off', () => {
    const warnings: string[] = [];
    checkSandbox(loadToml(SHELL_STAGE).blueprint!, configFile('[sandbox]\nkind = "none"\n'), (w) => warnings.push(w));
    expect(warnings).toEqual([expect.stringContaining('run without a sandbox')]);
  });
});
