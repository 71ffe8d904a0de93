/**
 * Every command that loads a blueprint from disk loads it through one
 * loader, against the user config `lev validate` reads
 * (docs/reference/blueprint.md#user-config): with the same blueprint and the
 * same config, `validate`, `run`, `blueprint push`, `add`, `test` and
 * `context simulate` all accept it, or all refuse it for the same finding.
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FolderBlueprintStore } from '../../src/blueprints-store/pushed-blueprints.js';
import { blueprintLoader } from '../../src/cli/blueprint-loader.js';
import { type LevResult, lev } from './lev-in-process.js';

const scratch = mkdtempSync(join(tmpdir(), 'lev-one-loading-path-'));
const notes = join(scratch, 'notes');
mkdirSync(notes);
const events = join(scratch, 'events.jsonl');
writeFileSync(events, '');

/** A stage granted an MCP tool by name, a command seed and a read path: three facts only the user config settles. */
const blueprint = join(scratch, 'bp');
mkdirSync(blueprint);
writeFileSync(
  join(blueprint, 'agent.toml'),
  `[agent]
name = "doors"

[read_paths]
allow = ["${notes}"]

[context.regions.task]
kind = "pinned"

[context.regions.status]
kind = "pinned"
seed = { command = "git status" }

[stages.main]
model = "scripted:doors"
available_tools = ["github__create_issue"]
`,
);

const granting = join(scratch, 'granting.toml');
writeFileSync(
  granting,
  `[security]
read_paths = ["${notes}"]
allow_seed_commands = false

[sandbox]
kind = "namespace"

[[mcp_servers]]
name = "github"
command = "github-mcp"
`,
);
const empty = join(scratch, 'empty.toml');
writeFileSync(empty, '');
const broken = join(scratch, 'broken.toml');
writeFileSync(broken, '[sandbox]\nkind = "nowhere"\n');

/** Each command that loads a blueprint, on `bp`, stopping short of a server where it would need one. */
const COMMANDS: Record<string, (bp: string) => string[]> = {
  validate: (bp) => ['validate', bp],
  // Nothing listens at port 1: a run that got past loading ends at the connection.
  run: (bp) => ['run', bp, '--task', 'x', '--detach', '--address', '127.0.0.1:1', '--workdir', scratch],
  'blueprint push': (bp) => ['blueprint', 'push', bp],
  add: (bp) => ['add', bp, '--force'],
  test: (bp) => ['test', bp, '--dry-run'],
  'context simulate': (bp) => ['context', 'simulate', bp, '--events', events],
};

async function everyCommand(config: string): Promise<Record<string, LevResult>> {
  const env = {
    LEVIATH_CONFIG: config,
    LEVIATH_HOME: join(scratch, 'home'),
    LEVIATH_AGENTS_DIR: join(scratch, 'agents'),
    LEVIATH_BLUEPRINT_DIR: join(scratch, 'pushed'),
    LEVIATH_BLOBS: 'local',
    // No bubblewrap here: a run that means to run a command is refused (sandbox-unavailable).
    PATH: scratch,
  };
  const out: Record<string, LevResult> = {};
  for (const [name, args] of Object.entries(COMMANDS)) out[name] = await lev(args(blueprint), { env });
  return out;
}

const said = (r: LevResult) => r.stdout + r.stderr;

describe('one loading path for every command', () => {
  it('the config that declares the MCP server and grants the read path: every command takes the blueprint', async () => {
    const results = await everyCommand(granting);
    for (const [name, r] of Object.entries(results)) {
      expect(said(r), name).not.toMatch(/unknown-tool|read-paths-not-granted|blueprint-invalid|config-invalid/);
      // allow_seed_commands = false: `lev run` does not mean to run the command seed, so needs no sandbox.
      expect(said(r), name).not.toContain('sandbox-unavailable');
    }
    expect(results.validate?.code).toBe(0);
    expect(results['blueprint push']?.code).toBe(0);
    expect(results.add?.code).toBe(0);
    expect(results.test?.code).toBe(0);
    expect(results['context simulate']?.code).toBe(0);
    expect(said(results.run!)).toContain('[server-unreachable]');
    // What a pushed blueprint carries for the workers that run it by reference.
    const pushed = await new FolderBlueprintStore(join(scratch, 'pushed')).resolve('doors');
    expect(pushed.bp.security).toMatchObject({ allowSeedCommands: false, readPaths: [notes] });
    expect(said(results.validate!)).toContain('1 granted by your config');
  });

  it('an empty config: every command refuses it for the MCP tool', async () => {
    for (const [name, r] of Object.entries(await everyCommand(empty))) {
      expect(r.code, name).not.toBe(0);
      expect(said(r), name).toContain('unknown-tool');
    }
  });

  it('a config with an error: every command refuses, naming it', async () => {
    for (const [name, r] of Object.entries(await everyCommand(broken))) {
      expect(r.code, name).not.toBe(0);
      expect(said(r), name).toContain('[bad-value]');
      // validate and simulate report findings; the others refuse with one code.
      if (name !== 'validate' && name !== 'context simulate') expect(said(r), name).toContain('[config-invalid]');
    }
  });

  it("the loaded blueprint carries the config's facts: seeds off, the grants, the MCP server", () => {
    const saved = process.env.LEVIATH_CONFIG;
    process.env.LEVIATH_CONFIG = granting;
    try {
      const loader = blueprintLoader();
      const loaded = loader.load(blueprint, { workdir: scratch });
      expect(loaded.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect(loaded.blueprint?.security).toMatchObject({ allowSeedCommands: false, readPaths: [notes] });
      expect(loader.config.mcpServers.map((s) => s.name)).toEqual(['github']);
      expect(loader.config.sandbox.kind).toBe('namespace');
    } finally {
      if (saved === undefined) delete process.env.LEVIATH_CONFIG;
      else process.env.LEVIATH_CONFIG = saved;
    }
  });
});
