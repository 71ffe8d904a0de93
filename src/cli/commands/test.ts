/**
 * `lev test [path]`: a blueprint's `tests/` cases, each one first-turn
 * inference (docs/reference/blueprint-tests.md). Exit 0 when every case
 * passes, 1 when one fails, 2 when the blueprint cannot be loaded.
 */
import type { Command } from 'commander';

interface TestFlags {
  filter?: string;
  dryRun?: boolean;
  model?: string;
  json?: boolean;
}

const EXAMPLE = `No tests/ directory here. Create tests/ with .toml or .rhai files, for example tests/basic.toml:

  [[test]]
  name = "basic_response"
  input = "Hello"
  expect_contains = "hello"

Also available: expect_tool_call, max_tokens (docs/reference/blueprint-tests.md).
`;

export function registerTest(program: Command): void {
  program
    .command('test')
    .description("Run a blueprint's tests/ cases: one first-turn inference each, checked against its expectations.")
    .argument('[path]', 'blueprint directory, agent.toml, or installed agent name', '.')
    .option('-f, --filter <pattern>', 'only the cases (and scripts) whose name contains this')
    .option('--dry-run', 'check the cases without calling a model')
    .option('-m, --model <provider:model>', "send every case to this model instead of the entry stage's")
    .option('--json', 'print {stage, model, dryRun, results: [...], passed, failed, total}')
    .action(async (path: string, flags: TestFlags) => {
      const { existsSync } = await import('node:fs');
      const { join } = await import('node:path');
      const { loadOrExplain } = await import('../load-blueprint.js');
      const { resolveBlueprintArg } = await import('../installed-agents.js');
      const { formatTestReport, runBlueprintTests } = await import('../blueprint-tests.js');
      const bp = loadOrExplain(resolveBlueprintArg(path));
      if (!existsSync(join(bp.dir, 'tests'))) {
        if (flags.json) process.stdout.write(`${JSON.stringify({ results: [], passed: 0, failed: 0, total: 0 })}\n`);
        else process.stdout.write(EXAMPLE);
        return;
      }
      const report = await runBlueprintTests(bp, {
        ...(flags.filter !== undefined ? { filter: flags.filter } : {}),
        ...(flags.dryRun ? { dryRun: true } : {}),
        ...(flags.model !== undefined ? { model: flags.model } : {}),
      });
      process.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : formatTestReport(report));
      if (report.failed > 0) process.exitCode = 1;
    });
}
