/**
 * The original Leviath's seven stage-hook points (docs/reference/stage-hooks.md),
 * each the name of the function its script defines: read by the loader
 * (`src/blueprint/hook-scripts.ts`) and the runtime (`src/runtime/stage-hooks.ts`).
 */
export const STAGE_HOOK_EVENTS = [
  'on_stage_enter',
  'on_stage_exit',
  'before_inference',
  'after_inference',
  'on_tool_call',
  'on_completion',
  'on_error',
] as const;
export type StageHookEvent = (typeof STAGE_HOOK_EVENTS)[number];
