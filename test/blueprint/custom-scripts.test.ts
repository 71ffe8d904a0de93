/**
 * The ways a custom region's script can be wrong, each reported by
 * `lev validate` under the stable validation code `custom-script-invalid` with its own
 * message, and a compile error carrying the script's line and column.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadBlueprint } from '../../src/blueprint/load.js';

function blueprint(script: string, files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'lev-custom-'));
  const dir = join(root, 'agent');
  mkdirSync(join(dir, 'hooks'), { recursive: true });
  writeFileSync(join(dir, 'agent.toml'), `[context.regions]\nbrain = { kind = "custom", script = "${script}" }\n`);
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  return dir;
}

function findings(dir: string) {
  return loadBlueprint(dir).diagnostics.filter((d) => d.code === 'custom-script-invalid');
}

describe('custom-region scripts at validation', () => {
  it('reports a missing script', () => {
    const [d] = findings(blueprint('hooks/brain.rhai', {}));
    expect(d?.message).toMatch(/"hooks\/brain.rhai" does not exist/);
    expect(d?.line).toBe(2);
  });

  it('reports a script outside the blueprint directory', () => {
    const [d] = findings(blueprint('../outside.rhai', { 'outside.rhai': 'fn render(ctx) { "x" }' }));
    expect(d?.message).toMatch(/lies outside the blueprint directory/);
  });

  it('reports a syntax error with the line and column inside the script', () => {
    const [d] = findings(
      blueprint('hooks/brain.rhai', { 'agent/hooks/brain.rhai': 'fn render(ctx) {\n  let x = ;\n  x\n}\n' }),
    );
    expect(d?.message).toMatch(/does not compile/);
    expect(d?.message).toMatch(/line 2, position \d+/);
    expect(d?.message).toContain('hooks/brain.rhai');
  });

  it('reports a script without render', () => {
    const [d] = findings(blueprint('hooks/brain.rhai', { 'agent/hooks/brain.rhai': 'fn on_write(ctx) { true }\n' }));
    expect(d?.message).toMatch(/has no render function/);
  });

  it('accepts a script that compiles and has render', () => {
    expect(
      findings(blueprint('hooks/brain.rhai', { 'agent/hooks/brain.rhai': 'fn render(ctx) { "brain" }\n' })),
    ).toEqual([]);
  });
});
