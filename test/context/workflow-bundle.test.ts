/**
 * The engine runs inside Temporal's workflow sandbox: the real workflow
 * code, which imports it, must bundle, and the bundle must leave out zod
 * and the tokenizer (megabytes per cached workflow, and not deterministic
 * to load).
 */
import { bundleWorkflowCode } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { workflowsPath } from '../../src/worker/worker.js';

const quiet = { trace() {}, debug() {}, info() {}, warn() {}, error() {}, log() {} };

describe('the workflow bundle', () => {
  it('bundles the workflows with the engine and the Rhai interpreter, without zod or a tokenizer', async () => {
    const { code } = await bundleWorkflowCode({ workflowsPath: workflowsPath(), logger: quiet });
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
    expect(code.length).toBeLessThan(4 * 1024 * 1024);
  }, 120_000);
});
