/** Which tools a stage was given, and what a model reads when it calls another. */
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadBlueprintFromString } from '../../src/blueprint/load.js';
import { BUILTIN_TOOLS, CONTEXT_TOOLS } from '../../src/tools/builtin-names.js';
import { isGranted, notGrantedResult, stageTools } from '../../src/tools/grants.js';

const bp = loadBlueprintFromString(
  `[context.regions]
task = { kind = "pinned" }
[stages.read]
available_tools = ["read_file", "bash", "context_read"]
[stages.read.transitions.all]
[stages.all]
`,
  tmpdir(),
  'agent.toml',
).blueprint!;

describe('stage tool grants', () => {
  it('a stage with available_tools is given exactly those (aliases resolved), others everything', () => {
    expect(stageTools(bp, 'read')).toEqual(['read_file', 'shell', 'context_read']);
    expect(stageTools(bp, 'all')).toEqual([...BUILTIN_TOOLS, ...CONTEXT_TOOLS]);
    expect(isGranted(bp, 'read', 'bash')).toBe(true);
    expect(isGranted(bp, 'read', 'shell')).toBe(true);
    expect(isGranted(bp, 'read', 'write_file')).toBe(false);
    expect(isGranted(bp, 'read', 'context_write')).toBe(false);
    expect(isGranted(bp, 'all', 'write_file')).toBe(true);
    expect(isGranted(bp, 'all', 'no_such_tool')).toBe(false);
  });

  it('the refusal names the stage, the tool, and only the tools the stage was given', () => {
    const text = notGrantedResult(bp, 'read', 'write_file');
    expect(text).toMatch(/^\[tool-not-granted\] stage "read" was not given the tool `write_file`/);
    expect(text).toContain('read_file, shell, context_read');
    expect(text).not.toContain('edit_file');
  });
});
