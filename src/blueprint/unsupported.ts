/**
 * Keys and tools of the original Rust Leviath's blueprint schema that are
 * not built here (docs/reference/original-keys.md). A migrating user's
 * blueprint must still load and run with everything else, so each one is a
 * warning `unsupported-feature` that says what will not happen, never a hard
 * error. Only keys the original's schema has are listed: anything else is
 * `unknown-key`, so a typo is still caught.
 */
import type { TableReader } from './fields.js';

/**
 * Sections of the original's `config.toml` that users paste into a
 * blueprint; the original refuses them there too. Each is `unknown-key`
 * with a pointer to where it belongs.
 */
export const CONFIG_FILE_SECTIONS: Readonly<Record<string, string>> = {
  mcp_servers:
    'MCP servers are configured in your own config ($LEVIATH_CONFIG, else ~/.config/leviath/config.toml), not in a blueprint',
  rate_limits:
    'rate limits are set in your own config ($LEVIATH_CONFIG, else ~/.config/leviath/config.toml), not in a blueprint',
  nudge: 'a blueprint nudges with [agent] nudge or a stage `nudge`, not a top-level [nudge]',
};

/** `[agent]` keys. */
export const UNBUILT_AGENT_KEYS: Readonly<Record<string, string>> = {
  batch_tool_hint: 'the prompt hint about batching tool calls is not added',
  shell_hint: 'the prompt hint about the shell is not added',
};

/** Stage keys. */
export const UNBUILT_STAGE_KEYS: Readonly<Record<string, string>> = {
  sandbox: 'tools run in the sandbox of your own config, not in one the stage asks for',
  security: 'data flow is not tracked',
  batch_tool_hint: 'the prompt hint about batching tool calls is not added',
  shell_hint: 'the prompt hint about the shell is not added',
};

/** Blueprint `[sandbox]` keys: where and how tools run is the user's config alone. */
export const UNBUILT_SANDBOX_KEYS: Readonly<Record<string, string>> = {
  kind: 'a blueprint cannot choose the sandbox; tools run in the one your own config sets ([sandbox] kind)',
  image: 'a blueprint cannot choose the container image; your own config does',
  engine: 'a blueprint cannot choose the container engine; your own config does',
  mount: 'a blueprint cannot mount paths into the sandbox; your own config does',
  mounts: 'a blueprint cannot mount paths into the sandbox; your own config does',
  persist: 'a blueprint cannot keep a sandbox between runs; your own config does',
  on_unavailable: 'what happens without a sandbox is decided by your own config',
};

/** `[security]` keys of a blueprint besides allow_seed_commands. */
export const UNBUILT_SECURITY_KEYS: Readonly<Record<string, string>> = {
  taint_tracking: 'data flow is not tracked',
};

/** Keys of a stage's model table. */
export const UNBUILT_MODEL_KEYS: Readonly<Record<string, string>> = {
  request_timeout_secs: "requests keep the provider's own timeout",
  allow_user_default: 'a stage whose models are all unconfigured fails rather than using your default model',
};

/**
 * Tools of the original that are not built here. A stage that lists one is
 * not offered it.
 */
export const UNBUILT_TOOLS: Readonly<Record<string, string>> = {
  read_files: 'use read_file once per file',
  environment_info: 'the agent is not told its environment variables',
  which_command: 'the agent cannot ask whether a program is installed except through the shell',
};

/**
 * Tools the original ships as `tools/<name>.rhai` scripts beside the agents
 * that use them, not built in: there a blueprint without the script is refused
 * with `unknown-tool`. An `agent.leviath` is held to that, so it validates here
 * as it does there; with the script present the built-in here answers
 * (`script-tool-shadowed`), and an `agent.toml` gets the built-in without one.
 */
export const ORIGINAL_SCRIPT_TOOLS: Readonly<Record<string, string>> = {
  web_search: 'tools/web_search.rhai',
  web_fetch: 'tools/web_fetch.rhai',
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

/** Reports each of `sections` present in `t` as `unknown-key`, saying where it belongs. */
export function reportMisplacedSections(t: TableReader, sections: Readonly<Record<string, string>>): void {
  for (const [key, where] of Object.entries(sections)) {
    if (!t.has(key)) continue;
    t.findings.add('unknown-key', `A blueprint has no key "${key}": ${where}. Move it there or remove it.`, t.at(key));
  }
}
