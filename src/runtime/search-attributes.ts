/** The search attributes operators filter Leviath runs by in the Web UI. */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const BLUEPRINT_KEY = defineSearchAttributeKey('LeviathBlueprint', SearchAttributeType.KEYWORD);
export const STAGE_KEY = defineSearchAttributeKey('LeviathStage', SearchAttributeType.KEYWORD);
export const STATUS_KEY = defineSearchAttributeKey('LeviathStatus', SearchAttributeType.KEYWORD);
/** A sub-agent's parent run id, so the Web UI lists a run's workers with `LeviathParent = "<run id>"`. */
export const PARENT_KEY = defineSearchAttributeKey('LeviathParent', SearchAttributeType.KEYWORD);
/** The run a fork was forked from (docs/reference/cluster-runs.md#fork), so a run's forks list with `LeviathForkOf = "<run id>"`. */
export const FORK_KEY = defineSearchAttributeKey('LeviathForkOf', SearchAttributeType.KEYWORD);
