/**
 * `available_tools` names only tools that exist: a misspelt name is an
 * error with a did-you-mean, as in the original Leviath. The blueprint's own
 * script tools (`tools/*.rhai`, docs/reference/script-tools.md) exist too.
 * Tools the original has and this runtime does not are warnings, and the
 * stage is not offered them, as an autonomous stage is not offered a tool
 * that waits for a person without `allow_blocking_tools = true`
 * (docs/reference/interaction.md#the-asking-tools).
 * Output stages are granted `submit_output`, fan-out stages `fan_out`.
 * With `[agent] dynamic_tools`, a name no tool answers yet is a script the
 * run may write into its workdir's `tools/` (docs/reference/script-tools.md#tools-a-run-writes).
 */
import { SUBMIT_OUTPUT } from '../outputs/spec.js';
import type { Blueprint, StageDef } from '../shapes/frozen-blueprint.js';
import { DEFAULT_GRANT, RUNTIME_TOOLS } from '../shapes/tool-catalogue.js';
import { canonicalTool, FAN_OUT, isPersonTool, TOOL_ALIASES } from '../tools/builtin-names.js';
import { didYouMean, type Findings } from './findings.js';
import { serverOfName } from './mcp-servers.js';
import { TOOL_NAME } from './tool-declaration.js';
import { ORIGINAL_SCRIPT_TOOLS, UNBUILT_TOOLS } from './unsupported.js';

const KNOWN: readonly string[] = RUNTIME_TOOLS;

/**
 * `mcpServers` are the names of the user's `[[mcp_servers]]`: a name that
 * carries one (`github__create_issue`) is an MCP tool, and so is a bare name
 * that is close to no built-in once any server is configured; both are
 * resolved against what the servers offer when the stage is visited
 * (docs/reference/mcp.md#tool-names-and-grants).
 */
export function checkStageTools(
  bp: Blueprint,
  findings: Findings,
  mcpServers: readonly string[] = [],
  /** Names of `tools/` scripts already reported as broken: a stage listing one is not told twice. */
  refusedScripts: ReadonlySet<string> = new Set(),
  /** For an `agent.leviath`: the names its `tools/` scripts declare, which ORIGINAL_SCRIPT_TOOLS need. */
  originalScripts?: ReadonlySet<string>,
  /** `[agent] dynamic_tools`: a name no tool answers may be written by the run. */
  dynamicTools = false,
): void {
  const scripts = (bp.scriptTools ?? []).map((t) => t.name);
  for (const stage of bp.stages) {
    const at = ['stages', stage.name, 'available_tools'];
    for (const server of stage.availableConnectors ?? [])
      if (!mcpServers.includes(server))
        findings.add(
          'mcp-server-not-configured',
          `Stage "${stage.name}" lists the MCP server "${server}" in available_connectors, which your config does not declare${configured(mcpServers)}; its tools are not offered until you add a [[mcp_servers]] entry named "${server}" to your config.`,
          ['stages', stage.name, 'available_connectors'],
        );
    checkRequiredTools(stage, findings);
    if (stage.availableTools) {
      const kept: string[] = [];
      const written: string[] = [];
      for (const tool of stage.availableTools) {
        // Only an autonomous stage must say that it may wait for a person, as in the original.
        const waits = stage.allowBlockingTools || stage.requiredTools?.includes(tool);
        if (isPersonTool(tool) && (stage.mode ?? 'autonomous') === 'autonomous' && !waits) {
          findings.add(
            'blocking-tool-not-allowed',
            `Stage "${stage.name}" lists \`${tool}\`, which waits for a person, without \`allow_blocking_tools = true\`, so the autonomous stage is not offered it; set the key to say the stage may wait.`,
            at,
          );
          continue;
        }
        const script = ORIGINAL_SCRIPT_TOOLS[tool];
        if (originalScripts && script !== undefined && !originalScripts.has(tool) && !scripts.includes(tool)) {
          findings.add(
            'unknown-tool',
            `Stage "${stage.name}" lists \`${tool}\`, which the original Leviath does not build in: its agents carry it as ${script}, and this blueprint has none, so the original refuses it too. Copy ${script} from the original's agents into this blueprint (the built-in ${tool} then answers), or write the blueprint as agent.toml, where ${tool} is built in.`,
            at,
          );
          continue;
        }
        if (KNOWN.includes(tool) || scripts.includes(tool)) {
          kept.push(tool);
          continue;
        }
        if (refusedScripts.has(tool)) continue;
        const server = serverOfName(tool);
        if (server !== undefined) {
          if (mcpServers.includes(server)) kept.push(tool);
          else
            findings.add(
              'unknown-tool',
              `Stage "${stage.name}" lists \`${tool}\`, a tool of the MCP server "${server}", which your config does not declare${configured(mcpServers)}; add a [[mcp_servers]] entry named "${server}" to your config.`,
              at,
            );
          continue;
        }
        // A built-in of the original the run writes a script for would lose to that built-in there.
        const typo = didYouMean(tool, [...KNOWN, ...Object.keys(TOOL_ALIASES), ...scripts]);
        if (dynamicTools && TOOL_NAME.test(tool) && UNBUILT_TOOLS[tool] === undefined) {
          kept.push(tool);
          written.push(tool);
          // One edit from a tool that exists: more likely a typo than a script the run will write.
          if (typo !== '')
            findings.add(
              'dynamic-tool-near-name',
              `Stage "${stage.name}" lists \`${tool}\`, which no tool answers, so with [agent] dynamic_tools it is offered only once the run writes tools/${tool}.rhai${typo}.`,
              at,
            );
          continue;
        }
        if (mcpServers.length > 0 && typo === '' && UNBUILT_TOOLS[tool] === undefined) {
          // A bare MCP grant: it resolves when exactly one server offers the tool.
          kept.push(tool);
          continue;
        }
        const lost = UNBUILT_TOOLS[tool];
        if (lost !== undefined) {
          findings.add(
            'unsupported-feature',
            `Stage "${stage.name}" lists \`${tool}\`, a tool of the original Leviath that is not built here (${lost}), so the stage is not offered it.`,
            at,
          );
          continue;
        }
        findings.add(
          'unknown-tool',
          `Stage "${stage.name}" lists the tool \`${tool}\`, which does not exist${typo}; the tools are ${[...KNOWN, ...scripts].join(', ')}${mcpServers.length === 0 ? ' (an MCP tool is named <server>__<tool> after a [[mcp_servers]] entry of your config)' : ''}, and a script tool is a tools/<name>.rhai file of the blueprint.`,
          at,
        );
      }
      stage.availableTools = kept;
      if (written.length > 0) stage.dynamicTools = written;
    }
    if (stage.requireOutput) {
      const tools = stage.availableTools ?? [...DEFAULT_GRANT];
      if (!tools.map(canonicalTool).includes(SUBMIT_OUTPUT)) stage.availableTools = [...tools, SUBMIT_OUTPUT];
    }
    if (stage.mode === 'fan_out') {
      const tools = stage.availableTools ?? [...DEFAULT_GRANT];
      if (!tools.includes(FAN_OUT)) stage.availableTools = [...tools, FAN_OUT];
    }
  }
}

/**
 * `required_tools` names tools the stage lists, as in the original: a name
 * it does not list would keep nothing.
 */
function checkRequiredTools(stage: StageDef, findings: Findings): void {
  const offered = (stage.availableTools ?? [...DEFAULT_GRANT]).map(canonicalTool);
  for (const tool of stage.requiredTools ?? [])
    if (!offered.includes(tool))
      findings.add(
        'bad-value',
        `Stage "${stage.name}" lists \`${tool}\` in required_tools but not in available_tools; add it there (or remove it from required_tools).`,
        ['stages', stage.name, 'required_tools'],
      );
}

function configured(servers: readonly string[]): string {
  return servers.length > 0
    ? ` (it declares ${servers.map((s) => `"${s}"`).join(', ')})`
    : ' (it declares no MCP server)';
}
