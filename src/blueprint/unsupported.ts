/**
 * Keys and tools of the original Rust Leviath that are not built here. A
 * migrating user's blueprint must still load and run with everything else,
 * so each one is a warning `unsupported-feature` that says what will not
 * happen, never a hard error.
 */
import type { TableReader } from './fields.js';

/** Top-level tables, with what is lost without them. */
export const UNBUILT_TOP_KEYS: Readonly<Record<string, string>> = {
  mcp_servers: 'MCP servers are not started from a blueprint; declare them as [[mcp_servers]] in your user config',
  taint_tracking: 'data flow is not tracked',
  dependencies: 'the machine is not checked for these dependencies',
  nudge: 'a stage that answers without tool calls is not nudged',
  repetition: 'loops are detected only through `stuck` edges',
  script_permissions: 'script tools are not built, so these permissions govern nothing',
  mime_types: 'attachments are not typed',
  rate_limits: 'requests are not rate-limited on the client side',
};

/** `[agent]` keys. */
export const UNBUILT_AGENT_KEYS: Readonly<Record<string, string>> = {
  nudge: 'a stage that answers without tool calls is not nudged',
  tool_rescan: 'the tool list is fixed when the run starts',
};

/** Stage keys. */
export const UNBUILT_STAGE_KEYS: Readonly<Record<string, string>> = {
  interaction_points: 'the stage does not stop at these checkpoints to ask a person',
  required_tools: 'these tools are not kept or checked for',
  nudge: 'the stage is not nudged when it answers without tool calls',
  hooks: 'stage hooks are not run',
  connectors: 'connectors are not built',
  sandbox: 'tools run in the working directory, not in a sandbox',
  taint_tracking: 'data flow is not tracked',
  output_routing: 'the answer is not routed to a region',
  input_accepts: 'attachments are not typed',
  input_as_text: 'attachments are not typed',
  tool_accepts: 'attachments are not typed',
  batch_tool_hint: 'the prompt hint is not added',
  shell_hint: 'the prompt hint is not added',
  hide: 'every region of the layout stays visible to the stage',
  reset: 'no region is emptied when the stage is entered',
};

/**
 * Tools of the original that are not built here: asking a person anything
 * but a free-text question. A stage that lists one is not offered it.
 */
export const UNBUILT_TOOLS: Readonly<Record<string, string>> = {
  ask_user_choice: 'only free-text questions are built (`ask_user`)',
  ask_user_confirm: 'only free-text questions are built (`ask_user`)',
  edit_document: 'only free-text questions are built (`ask_user`)',
  present_for_review: 'only free-text questions are built (`ask_user`)',
  read_files: 'use read_file once per file',
};

/** Reports each unbuilt key present in `t`, naming what will not happen. */
export function reportUnbuiltKeys(t: TableReader, keys: Readonly<Record<string, string>>, where: string): void {
  for (const [key, lost] of Object.entries(keys)) {
    if (!t.has(key)) continue;
    t.findings.add(
      'unsupported-feature',
      `${where} key \`${key}\` from the original Leviath is not built here: ${lost}. The rest of the blueprint runs; remove the key to silence this warning.`,
      t.at(key),
    );
  }
}
