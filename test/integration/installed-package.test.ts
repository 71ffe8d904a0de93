/**
 * Leviath as a user installs it (issue 40): the tarball `npm pack` makes, installed offline into a
 * folder outside the checkout, then `lev validate` of a copied example, the demo on the embedded
 * dev server as `lev run` starts it, `lev doctor` against the lane's server, and docs/library.md's
 * program as TypeScript, compiled against the package's declarations and run, all from there.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort } from '../../src/devserver/net.js';
import { startWireServer, type WireServer } from '../providers/wire-server.js';
import { temporalAddress } from './helpers.js';
import { installOffline, packCheckout } from './installed-package.js';

const ROOT = join(import.meta.dirname, '..', '..');
const TASK = "Find the root cause of last night's billing outage in logs/ and write a short incident report.";

let scratch: string;
let project: string;
let home: string;
let tarball: string;

/** The user's shell: a PATH and a HOME (whose npm cache the offline install used), nothing of the checkout's. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LEVIATH_HOME: home,
    TEMPORAL_CLI: inject('temporalCli'),
    npm_config_offline: 'true',
    ...extra,
  };
}

function npx(args: string[], env = userEnv()): Promise<{ code: number | null; out: string; err: string }> {
  return spawned('npx', args, env);
}

function spawned(command: string, args: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
    const child = spawn(command, args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    child.stderr.on('data', (d) => {
      err += d;
    });
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'leviath-installed-'));
  expect(relative(ROOT, scratch).startsWith('..')).toBe(true);
  home = join(scratch, 'home');
  tarball = packCheckout(scratch);
  project = join(scratch, 'project');
  mkdirSync(project);
  installOffline(project, tarball);
  cpSync(join(project, 'node_modules', 'leviath', 'blueprints', 'demo'), join(project, 'demo'), { recursive: true });
}, 600_000);
afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe('the installed package', () => {
  it("holds the build (with lev serve's page), bin/ and the example blueprints, and neither sources, tests nor the TypeScript runner", () => {
    const pkg = join(project, 'node_modules', 'leviath');
    for (const path of [
      'dist/lev.mjs',
      'dist/worker.mjs',
      'dist/workflow-bundle.js',
      'dist/page/run.html',
      'bin/lev.mjs',
      'blueprints/demo',
    ])
      expect(existsSync(join(pkg, path)), path).toBe(true);
    for (const path of ['src', 'test', 'bench', '.ci', 'scripts', 'workflows', 'dist/lev.mjs.map'])
      expect(existsSync(join(pkg, path)), path).toBe(false);
    for (const dev of ['tsx', 'esbuild', 'vitest', 'typescript'])
      expect(existsSync(join(project, 'node_modules', dev)), dev).toBe(false);
  });

  it('answers to both its names', async () => {
    const [lev, leviath] = [await npx(['lev', '--version']), await npx(['leviath', '--version'])];
    expect(lev).toMatchObject({ code: 0, err: '' });
    expect(leviath).toMatchObject({ code: 0, err: '', out: lev.out });
  });

  it('validates a copied example blueprint', async () => {
    const { code, out, err } = await npx(['lev', 'validate', 'demo']);
    expect(err).toBe('');
    expect(out).toMatch(/^demo\/agent\.toml: ok \(0 errors/);
    expect(code).toBe(0);
  });

  it('runs the demo to its report on the embedded dev server, compiling nothing', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const { code, out, err } = await npx([
      'lev',
      'run',
      'demo',
      '--workdir',
      'demo/workspace',
      '--task',
      TASK,
      '--address',
      address,
    ]);
    expect(err).toMatch(new RegExp(`started the Temporal dev server at ${address} on ${home}/`));
    expect(err).not.toMatch(/TypeScript sources/);
    expect(out).toMatch(/Run completed after stages investigate → report/);
    expect(out).toMatch(/Output:\nIncident 2026-11-28, .*connection pool/);
    expect(code).toBe(0);
  }, 300_000);

  describe('lev doctor', () => {
    let wire: WireServer;
    beforeAll(async () => {
      wire = await startWireServer(() => ({
        json: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-opus-5-5',
          content: [{ type: 'text', text: 'PONG' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 21, output_tokens: 2 },
        },
      }));
    });
    afterAll(() => wire?.close());

    it('passes every check, its worker running the installed build against the server', async () => {
      // The sandbox is off so that the verdict does not depend on whether this machine has bubblewrap.
      const config = join(scratch, 'config.toml');
      writeFileSync(config, '[sandbox]\nkind = "none"\n');
      const env = userEnv({
        LEVIATH_CONFIG: config,
        ANTHROPIC_API_KEY: 'sk-ant-test-1',
        ANTHROPIC_BASE_URL: wire.url,
      });
      const { code, out, err } = await npx(['lev', 'doctor', '--json', '--address', temporalAddress()], env);
      const report = JSON.parse(out) as { checks: { name: string; ok: boolean }[]; passed: boolean };
      expect(report.checks.filter((c) => !c.ok)).toEqual([]);
      expect(report.checks.map((c) => c.name)).toEqual(expect.arrayContaining(['server', 'worker', 'inference']));
      expect(err).not.toMatch(/TypeScript sources/);
      expect(code).toBe(0);
    }, 300_000);
  });

  describe("docs/library.md's program, in TypeScript", () => {
    let tsc: { status: number | null; out: string };
    beforeAll(() => {
      // The page's program, as test/integration/library.test.ts takes it, saved as embed.ts; misuse.ts passes a wrong type.
      const page = readFileSync(join(ROOT, 'docs', 'library.md'), 'utf8');
      writeFileSync(join(project, 'embed.ts'), page.match(/^```js\n([\s\S]*?)^```$/m)?.[1] ?? '');
      writeFileSync(
        join(project, 'misuse.ts'),
        "import { connect } from 'leviath';\nconst client = await connect();\nawait client.start(42, { task: 'x' });\n",
      );
      // A user's usual settings; skipLibCheck because @temporalio/common's own declarations import `ms`, which has none.
      const compilerOptions = {
        module: 'NodeNext',
        target: 'ES2022',
        strict: true,
        skipLibCheck: true,
        outDir: 'out',
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules', '@types')],
      };
      writeFileSync(
        join(project, 'tsconfig.json'),
        JSON.stringify({ compilerOptions, files: ['embed.ts', 'misuse.ts'] }),
      );
      const run = spawnSync(
        process.execPath,
        [createRequire(import.meta.url).resolve('typescript/bin/tsc'), '-p', '.'],
        {
          cwd: project,
          encoding: 'utf8',
        },
      );
      tsc = { status: run.status, out: `${run.stdout}${run.stderr}` };
    }, 300_000);

    it("type-checks against the package's declarations, which refuse a wrong argument", () => {
      expect(tsc.out.trim().split('\n')).toEqual([
        expect.stringMatching(/^misuse\.ts\(3,\d+\): error TS2345: .*'string \| Blueprint'/),
      ]);
      expect(tsc.status).not.toBe(0);
    });

    it("runs the demo to completion through the package's exports and its prebuilt workflow bundle", async () => {
      const { code, out, err } = await spawned(
        process.execPath,
        ['out/embed.js'],
        userEnv({ TEMPORAL_ADDRESS: temporalAddress() }),
      );
      expect(err).toBe('');
      expect(out.split('\n').filter((l) => l.startsWith('['))[0]).toMatch(/^\[investigate\] turn 1: \d+\/\d+ tokens$/);
      expect(out).toMatch(/^completed Incident 2026-11-28.*connection pool/m);
      expect(code).toBe(0);
    }, 300_000);
  });
});
