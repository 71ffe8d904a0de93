/** `lev models list` and `lev models show` (docs/reference/commands.md#lev-models). */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lev as levInProcess, withoutProviderKeys } from './lev-in-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lev-models-'));
const config = join(scratch, 'config.toml');
writeFileSync(config, '[models."ollama:qwen3.6"]\ncontext_window = 262144\nmax_output_tokens = 8192\n');

async function lev(env: Record<string, string>, ...args: string[]) {
  const r = await levInProcess(['models', ...args], {
    env: { ...withoutProviderKeys(), LEVIATH_CONFIG: config, ...env },
  });
  return { code: r.code, out: r.stdout, err: r.stderr };
}

describe('lev models', () => {
  it('lists the models of configured providers, and every one with --all', async () => {
    const json = async (env: Record<string, string>, ...a: string[]) =>
      JSON.parse((await lev(env, 'list', '--json', ...a)).out);
    const google = await json({ GOOGLE_API_KEY: 'AIza-x' });
    const providers = new Set(google.map((r: { provider: string }) => r.provider));
    expect(providers.has('google')).toBe(true);
    expect(providers.has('anthropic')).toBe(false);
    expect(google.find((r: { model: string }) => r.model === 'ollama:qwen3.6')).toMatchObject({
      contextWindow: 262144,
      source: 'config',
      configured: true,
    });
    const all = await json({}, '--all');
    expect(
      all.some((r: { model: string; configured: boolean }) => r.model === 'anthropic:claude-sonnet-5' && !r.configured),
    ).toBe(true);
    expect((await json({}, '--provider', 'google')).every((r: { provider: string }) => r.provider === 'google')).toBe(
      true,
    );
    expect((await lev({ GOOGLE_API_KEY: 'AIza-x' }, 'list')).out).toMatch(
      /^google:gemini-3\.5-flash\s+1048576\s+65535\s+yes$/m,
    );
  });

  it('shows one model, a tagged name by its row, and refuses an unknown one', async () => {
    const shown = await lev({}, 'show', 'anthropic:claude-sonnet-5');
    expect(shown.out).toMatch(/context window\s+1000000 tokens/);
    expect(shown.out).toMatch(/prices \(USD\/M\)\s+input 2, cached read 0\.2, cache write 2\.5/);
    expect(shown.out).toMatch(/configured\s+no: its API key is not set here/);
    expect(JSON.parse((await lev({}, 'show', 'ollama:qwen3:8b', '--json')).out)).toMatchObject({
      model: 'ollama:qwen3',
    });
    const unknown = await lev({}, 'show', 'nobody:nothing');
    expect(unknown.code).toBe(1);
    expect(unknown.err).toMatch(/error \[unknown-model\]/);
  });
});
