/**
 * The engine runs inside Temporal's workflow sandbox: the real workflow
 * code, which imports it, must bundle, and the bundle must leave out zod
 * and the tokenizer (megabytes per cached workflow, and not deterministic
 * to load).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
// @ts-expect-error: plain JavaScript without declarations, run before anything is compiled.
import { buildState } from '../../scripts/build.mjs';
import { PROJECT_ROOT } from '../../src/state/project-root.js';
import { bundleWorkflows, libraryModules } from '../../src/worker/create-worker.js';

/**
 * The bundle workers run, once for the whole file (webpack takes seconds): the one
 * `scripts/build.mjs` made with `bundleWorkflows` while the build is of today's sources, as
 * `npm test` leaves it and workers load it, else `bundleWorkflows` here.
 */
let bundled: Promise<{ code: string }> | undefined;
const workerBundle = () => {
  bundled ??= (buildState() as { fresh: boolean }).fresh
    ? Promise.resolve({ code: readFileSync(join(PROJECT_ROOT, 'dist', 'workflow-bundle.js'), 'utf8') })
    : bundleWorkflows();
  return bundled;
};

describe('the workflow bundle', () => {
  it('bundles the workflows with the engine and the Rhai interpreter, without zod or a tokenizer', async () => {
    const { code } = await workerBundle();
    expect(code).toContain('agentRunWorkflow');
    // Functions the workflows reach in the pure engine and the interpreter.
    expect(code).toContain('applyContextTool');
    expect(code).toContain('renderPrompt');
    expect(code).toMatch(/rhai/i);
    // Module paths are kept in the bundle, so a dependency that slipped in would show here.
    expect(code).toMatch(/node_modules\/@temporalio\/common\//);
    expect(code).not.toMatch(/node_modules\/zod\//);
    expect(code).not.toMatch(/node_modules\/(js-tiktoken|gpt-tokenizer)\//);
    expect(code).not.toMatch(/node_modules\/smol-toml\//);
    // The bundle carries a source map of lines only, not the sources' text (bundleWorkflows), so the
    // project's own workflow code counts once. Interaction points, workflow-side metrics and spans,
    // forks and delivery workflows together took it to 2.47 MiB (4.09 MiB with the sources in the map,
    // under the 4.5 MiB this checked then): the limit keeps the same headroom.
    expect(code.length).toBeLessThan(2.75 * 1024 * 1024);
  }, 120_000);

  it('preloads every library module the workflows import, in the wings (run/, visit/, agents/) too', () => {
    const modules = libraryModules();
    // A preload that silently shrank would bring back the fan-out start cost bench/fanout.ts measured.
    expect(modules).toHaveLength(23);
    expect(modules.every((m) => m.startsWith('../src/'))).toBe(true);
    // Imported only from workflows/visit/ and workflows/agents/.
    expect(modules).toContain('../src/runtime/stage-modes.js');
    expect(modules).toContain('../src/context/routing.js');
    expect(modules).toContain('../src/runtime/steps.js');
    expect(modules).toContain('../src/runtime/run-tools.js');
    // Imported only from workflows/tool-worker-watch.ts, at the top of workflows/.
    expect(modules).toContain('../src/runtime/tool-patience.js');
    expect(modules).toContain('../src/runtime/people/interaction-points.js');
    // The run's event stream: the log the workflows keep and the events they write (docs/reference/events.md).
    expect(modules).toContain('../src/runtime/event-log.js');
    expect(modules).toContain('../src/runtime/stream-events.js');
    // The message definitions, which the clients import too.
    expect(modules).toContain('../src/runtime/messages.js');
    // Which shape a visit's inferences take (docs/reference/blueprint.md#runtime).
    expect(modules).toContain('../src/runtime/inference-shape.js');
    // Stage hooks, run in the visits and as the run ends (docs/reference/stage-hooks.md).
    expect(modules).toContain('../src/runtime/stage-hooks.js');
    // Whether a visit's turns offer the run's tools (docs/reference/rendering.md#the-tool-list).
    expect(modules).toContain('../src/runtime/run-tools.js');
  });
});

/** What the SDK does to a preloaded module's exports: every object reachable from them is frozen. */
function deepFreeze(value: unknown, seen = new WeakSet<object>()): void {
  if (value === null || (typeof value !== 'object' && typeof value !== 'function') || seen.has(value)) return;
  seen.add(value);
  if (typeof value === 'object')
    for (const key of Reflect.ownKeys(value)) {
      try {
        deepFreeze((value as Record<PropertyKey, unknown>)[key], seen);
      } catch {
        // Typed arrays and the like cannot be frozen; the SDK skips them too.
      }
    }
  Object.freeze(value);
}

describe('the preloaded library modules', () => {
  it('are evaluated once per workflow thread, and still work with their exports frozen', async () => {
    const { code } = await workerBundle();
    const preload = /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(code)?.[1] ?? '';
    expect(preload).toContain('"./src/runtime/index.ts"');
    expect(preload).toContain('"./src/context/index.ts"');
    expect(preload).not.toMatch(/"\.\/workflows\//);
    // The OpenTelemetry interceptors run in every workflow, evaluated per workflow: they keep state
    // of their own (docs/reference/operating.md#traces).
    expect(code).toMatch(/node_modules\/@temporalio\/interceptors-opentelemetry\/lib\/workflow\//);
    expect(code).toContain('./workflows/spans.ts');
    expect(preload).not.toContain('opentelemetry');

    // Fresh instances of the modules, dropped again afterwards: the unit files of a worker share one
    // process (vitest.config.ts), and modules frozen here must not reach the files after this one.
    vi.resetModules();
    try {
      // Freeze every library module in the bundle as a worker thread would, then use them.
      const modules = [...new Set([...code.matchAll(/^\/\*\*\*\/ "\.\/(src\/[^"]+\.ts)"/gm)].map((m) => m[1]!))];
      expect(modules.length).toBeGreaterThan(40);
      for (const m of modules) for (const value of Object.values(await import(`../../${m}`))) deepFreeze(value);

      const { compile } = await import('../../src/rhai/index.js');
      const c = compile(
        'fn f(xs) { let s = ""; for x in xs { s += x.to_string() + ","; } s.sub_string(0, 5) }',
        'f.rhai',
      );
      if (!c.ok) throw new Error(c.error.message);
      expect(c.script.call('f', [[10, 20, 30]])).toMatchObject({ ok: true, value: '10,20' });

      const { createRunState } = await import('../../src/context/state.js');
      const { applyLive, ENGINE } = await import('../../src/runtime/index.js');
      const { blueprint, region } = await import('../seeds/fixture.js');
      const bp = blueprint([region('notes', undefined, { kind: 'temporary', maxTokens: 100 })]);
      const state = createRunState(bp, { window: 8000 });
      const count = (req: { type: string; text?: string }) =>
        Promise.resolve(req.type === 'count' ? (req.text?.length ?? 0) : 0);
      await applyLive(
        ENGINE,
        state,
        bp,
        { kind: 'write', region: 'notes', entry: { content: 'kept', tokens: 1 } },
        { now: 0 },
        count,
      );
      expect(state.regions.find((r) => r.name === 'notes')?.entries.map((e) => e.content)).toEqual(['kept']);
    } finally {
      vi.resetModules();
    }
  }, 120_000);
});
