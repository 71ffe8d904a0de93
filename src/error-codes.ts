/**
 * Every code the runtime can answer with, and what it means: the codes of
 * tool results the model reads, of failed runs, of the diagnostics a run
 * records, of seeds, of the CLI and of the simulator. `lev validate`'s codes
 * live in `src/blueprint/codes.ts`. Users, scripts and models match on these
 * names: add codes, never rename them. The table "Every runtime code" in
 * docs/reference/errors.md is checked against this list, row for row and in
 * this order, by `test/error-codes.test.ts`. Pure: no
 * imports, so every layer can name its codes with the `RuntimeCode` type.
 */

/** Where a code shows up. */
export type CodeSurface =
  /** In a tool result the model reads (`[code] sentence`); the run goes on. */
  | 'tool'
  /** As the code of a failed run (the workflow failure's type). */
  | 'run'
  /** In the run's diagnostics (`lev inspect`, the run result); the run goes on. */
  | 'diagnostic'
  /** Resolving a region's seed: a warning, or the run's failure for a required region. */
  | 'seed'
  /** A model provider's answer, as the inference activity's failure. */
  | 'provider'
  /** A `lev` command, before or around a run. */
  | 'cli'
  /** An event of `lev context simulate`. */
  | 'simulator'
  /** A Rhai script (seed, custom region) failed. */
  | 'rhai'
  /** An update a person sent to a run was refused; nothing changed. */
  | 'operator';

export interface RuntimeCodeInfo {
  surface: CodeSurface;
  meaning: string;
}

export const RUNTIME_CODES = {
  // Writes and context tools
  'bad-argument': { surface: 'tool', meaning: 'A tool argument has the wrong type or shape, or is not valid JSON.' },
  'missing-argument': { surface: 'tool', meaning: 'A required tool argument is missing.' },
  'unknown-region': { surface: 'tool', meaning: 'The region named does not exist in this run.' },
  'hidden-region': { surface: 'tool', meaning: 'The region exists but the current stage does not show it.' },
  'not-writable': { surface: 'tool', meaning: 'The region cannot be written with this tool (pinned, or a checklist).' },
  'not-appendable': { surface: 'tool', meaning: 'The entry cannot be appended to (no such key, or a non-text entry).' },
  'not-a-checklist': { surface: 'tool', meaning: 'A `todo_*` tool names a region that is not a checklist.' },
  'key-required': { surface: 'tool', meaning: 'A write to a hashmap region gave no `key`.' },
  'not-found': { surface: 'tool', meaning: 'No entry, item, key or file matches what the call named.' },
  'too-large': { surface: 'tool', meaning: 'The entry is larger than the whole budget of its region.' },
  'region-full': {
    surface: 'tool',
    meaning: 'The region rejects new entries until one is released (admission = reject).',
  },
  'unknown-tool': { surface: 'tool', meaning: 'No tool of that name exists.' },
  'tool-arguments-too-large': {
    surface: 'tool',
    meaning: "A reply's tool arguments are over 1 MiB; the call is refused and the model reads why.",
  },
  'tool-not-granted': { surface: 'tool', meaning: 'The tool exists but the current stage was not given it.' },
  'tool-failed': { surface: 'tool', meaning: 'A tool failed unexpectedly, or its activity failed after its retries.' },
  // File and shell tools
  'path-invalid': { surface: 'tool', meaning: 'A path or pattern contains a NUL byte.' },
  'path-too-long': { surface: 'tool', meaning: 'A path is longer than the file system allows.' },
  'path-outside-workdir': {
    surface: 'tool',
    meaning: 'A path leads outside the working directory and no granted read path covers it.',
  },
  'path-symlink-loop': { surface: 'tool', meaning: 'A path goes through a loop of symbolic links.' },
  'is-a-directory': { surface: 'tool', meaning: 'A file tool was given a directory.' },
  'not-a-directory': { surface: 'tool', meaning: '`list_dir` was given a file.' },
  'binary-file': { surface: 'tool', meaning: '`read_file` was given a file that is not text.' },
  'edit-no-match': { surface: 'tool', meaning: "`edit_file`'s `old_string` is not in the file." },
  'edit-ambiguous': { surface: 'tool', meaning: "`edit_file`'s `old_string` occurs more than once." },
  'permission-denied': { surface: 'tool', meaning: 'The blueprint denies this tool call.' },
  'permission-ask': { surface: 'tool', meaning: 'The call needs a user to allow it, and the user refused.' },
  'call-denied': { surface: 'tool', meaning: 'An operator denied a call that waited under an `ask` permission.' },
  'ask-timed-out': {
    surface: 'tool',
    meaning: 'Nobody approved the call or answered the question within `[run] ask_timeout`.',
  },
  'ask-user-unattended': {
    surface: 'tool',
    meaning: 'A tool that waits for a person (`ask_user`, `ask_user_choice`, ...) was called in a run nobody attends.',
  },
  'permission-ask-unattended': {
    surface: 'tool',
    meaning: 'The call needs a user to allow it, and the run is unattended.',
  },
  'workdir-missing': { surface: 'tool', meaning: 'The working directory does not exist.' },
  'shell-failed': { surface: 'tool', meaning: 'The shell (bash) could not be started.' },
  'shell-exit': { surface: 'tool', meaning: 'The command exited with a non-zero status.' },
  'shell-timeout': { surface: 'tool', meaning: 'The command did not finish in time and was stopped.' },
  'shell-cancelled': { surface: 'tool', meaning: 'The command was stopped because the call was cancelled.' },
  // Sub-agents (docs/reference/sub-agents.md)
  'agent-unknown': {
    surface: 'tool',
    meaning: 'A sub-agent tool names a blueprint or stage this run cannot start.',
  },
  'worker-stage-not-allowed': {
    surface: 'tool',
    meaning: 'A sub-agent tool names a stage without `allow_as_worker = true`.',
  },
  'agent-not-found': {
    surface: 'tool',
    meaning: 'No agent this stage visit started has that id.',
  },
  'agent-depth-exceeded': {
    surface: 'tool',
    meaning: 'Starting the agent would nest sub-agents deeper than `max_child_depth` allows.',
  },
  'agent-failed': {
    surface: 'tool',
    meaning: 'The sub-agent ended without an answer: it failed, was cancelled, or owed an output it never gave.',
  },
  'fan-out-not-alone': {
    surface: 'tool',
    meaning: '`fan_out` was called next to another tool call; it must be the only call of its turn.',
  },
  'fan-out-too-many': {
    surface: 'tool',
    meaning: "`fan_out` was given more items than one call takes (10,000, or the stage's `max_items`).",
  },
  // Runs
  'stage-failed': {
    surface: 'run',
    meaning: 'A stage visit failed, or ended with an error and the stage has no `error` or `dead_end` edge.',
  },
  'dead-end': {
    surface: 'run',
    meaning: 'Every edge out of a stage used up its revisits and it has no `dead_end` or `error` edge.',
  },
  'unknown-stage': { surface: 'run', meaning: 'A stage named at run time is not in the blueprint.' },
  'budget-exhausted': {
    surface: 'run',
    meaning: 'The run spent what `[run] max_cost_usd` or `[run] max_tokens` allows; raise the cap to let it go on.',
  },
  'provider-unavailable': {
    surface: 'run',
    meaning:
      "No model of the stage's chain answered for `[run] provider_patience`; the run waited, then failed (a warning of the same code records a chain moving past an entry that is down).",
  },
  'stage-cancelled': {
    surface: 'run',
    meaning: 'A stage visit was cancelled on its own instead of its run; cancel the run itself.',
  },
  'checkpoint-unanswered': {
    surface: 'run',
    meaning:
      'An interaction point with `unattended = "ask"` went unanswered within `ask_timeout`, so the run stopped rather than pass it unread.',
  },
  'seed-failed': { surface: 'run', meaning: 'Resolving the seeds failed for a reason no seed code names.' },
  'region-over-budget': {
    surface: 'run',
    meaning: 'Entering a stage, a region holds more than its new budget and cannot be reduced to fit.',
  },
  'stage-prompt-too-large': {
    surface: 'run',
    meaning: 'Entering a stage, its prompt does not fit the region it lands in (as `lev validate` warns).',
  },
  'stage-prompt-no-region': {
    surface: 'run',
    meaning: 'Entering a stage with a `system_prompt` and no pinned region to hold it.',
  },
  'region-kind-changed': {
    surface: 'run',
    meaning: 'Entering a stage that re-declares a region with a different kind.',
  },
  'working-space': {
    surface: 'run',
    meaning: "Entering a stage whose fixed regions leave too little of the model's window to work in.",
  },
  // Diagnostics a run records
  'custom-render-failed': {
    surface: 'diagnostic',
    meaning: "A custom region's `render` failed; the region was rendered with the default heading.",
  },
  'custom-script-failed': {
    surface: 'diagnostic',
    meaning: "A custom region's `on_write` or `on_overflow` failed or answered nonsense; the default applied.",
  },
  'compaction-failed': {
    surface: 'diagnostic',
    meaning: 'A summary call failed; the entries it would have folded were kept.',
  },
  'compaction-discarded': {
    surface: 'diagnostic',
    meaning: 'A summary did not fit where it had to go and was dropped; the entries were kept.',
  },
  'window-pressure': {
    surface: 'diagnostic',
    meaning: 'After the cascade the prompt still leaves less than the reply headroom.',
  },
  'gate-forced': {
    surface: 'diagnostic',
    meaning: 'A completion check kept failing until its attempts ran out; the run moved on anyway.',
  },
  'edge-choice-unmatched': {
    surface: 'diagnostic',
    meaning: "The model's edge choice named no edge; the first available edge was taken.",
  },
  'messages-undelivered': {
    surface: 'diagnostic',
    meaning: 'The run ended holding messages people sent: no later stage accepted messages.',
  },
  // Seeds
  'task-not-accepted': { surface: 'seed', meaning: 'A task was given but no region takes the task.' },
  'required-input-missing': { surface: 'seed', meaning: 'A required region seeded from caller input got none.' },
  'seed-path-refused': { surface: 'seed', meaning: 'A file or glob seed names a path outside what the run may read.' },
  'seed-file-unreadable': {
    surface: 'seed',
    meaning: 'A file seed names a file that is missing, a directory or unreadable.',
  },
  'seed-file-truncated': { surface: 'seed', meaning: 'A file seed was larger than the seed limit and was cut.' },
  'seed-glob-empty': { surface: 'seed', meaning: 'A glob seed matched no files.' },
  'seed-command-disabled': {
    surface: 'seed',
    meaning: 'A command seed was not run (`--no-seed-commands` or `allow_seed_commands = false`).',
  },
  'seed-command-not-approved': {
    surface: 'seed',
    meaning: 'A command seed is not on the safe list and was not approved.',
  },
  'seed-command-failed': { surface: 'seed', meaning: 'A command seed could not start, failed or timed out.' },
  'seed-command-empty': { surface: 'seed', meaning: 'A command seed printed nothing.' },
  'seed-rhai-failed': { surface: 'seed', meaning: 'A Rhai seed script does not compile or failed.' },
  'seed-empty': { surface: 'seed', meaning: 'A Rhai seed script returned nothing.' },
  'seed-tool-failed': { surface: 'seed', meaning: 'A tool seed failed.' },
  // Rhai
  'rhai-syntax': { surface: 'rhai', meaning: 'A Rhai script does not parse.' },
  'rhai-runtime': { surface: 'rhai', meaning: 'A Rhai script failed while running.' },
  'rhai-limit': { surface: 'rhai', meaning: 'A Rhai script hit an operation, depth or size limit.' },
  // Providers
  'provider-bad-request': { surface: 'provider', meaning: 'The provider rejected the request as malformed.' },
  'provider-auth': { surface: 'provider', meaning: 'The provider rejected the API key.' },
  'provider-forbidden': { surface: 'provider', meaning: 'The API key may not use this model or endpoint.' },
  'provider-not-found': { surface: 'provider', meaning: 'The provider does not know the model or endpoint.' },
  'provider-context-length': { surface: 'provider', meaning: "The prompt is longer than the model's window." },
  'provider-rate-limit': { surface: 'provider', meaning: 'The provider is rate-limiting; the call is retried.' },
  'provider-server': { surface: 'provider', meaning: 'The provider had a server error; the call is retried.' },
  'provider-timeout': { surface: 'provider', meaning: 'The provider did not answer in time; the call is retried.' },
  'provider-connection': { surface: 'provider', meaning: 'The provider could not be reached; the call is retried.' },
  'provider-bad-response': {
    surface: 'provider',
    meaning:
      'The provider answered with something that is not its JSON (an HTML page, malformed JSON); the call is retried.',
  },
  'provider-empty-answer': {
    surface: 'provider',
    meaning: 'The provider answered with no choices; the call is retried.',
  },
  'provider-answer-too-large': {
    surface: 'provider',
    meaning: 'The provider answer is over 8 MiB; the call is not retried.',
  },
  'provider-script-failed': {
    surface: 'provider',
    meaning:
      'A script provider stopped with an error that is not a retried one (a bug, a permanent `throw`, a bad reply); the call is not retried.',
  },
  'unknown-provider': { surface: 'provider', meaning: 'A model reference names no known provider.' },
  'model-parameter-unsupported': {
    surface: 'provider',
    meaning: "A stage's model parameter is one the provider of the model it runs on has no setting for.",
  },
  'provider-timeout-invalid': { surface: 'provider', meaning: 'A provider timeout setting is not a positive number.' },
  'scripted-script-missing': { surface: 'provider', meaning: 'The `scripted` provider has no script file.' },
  'scripted-script-invalid': { surface: 'provider', meaning: "The `scripted` provider's script does not parse." },
  'scripted-stage-turn-missing': {
    surface: 'provider',
    meaning: "The `scripted` provider's script has no reply for this stage and turn.",
  },
  'not-a-regular-file': {
    surface: 'tool',
    meaning: 'The path names a FIFO, socket or device, which file tools never open.',
  },
  'file-hard-linked': {
    surface: 'tool',
    meaning: 'The file has more than one hard link, so it is read but never written.',
  },
  'path-changed': {
    surface: 'tool',
    meaning: 'A link appeared on the path while it was being opened; call again.',
  },
  'file-not-utf8': { surface: 'tool', meaning: '`edit_file` refuses a file that is not valid UTF-8.' },
  'file-unreadable': { surface: 'tool', meaning: 'The file could not be opened for a reason the message gives.' },
  'sandbox-unavailable': {
    surface: 'tool',
    meaning: 'The bubblewrap command sandbox cannot be built; install bubblewrap or set `[sandbox] kind = "none"`.',
  },
  // MCP servers (docs/reference/mcp.md#errors)
  'mcp-unavailable': {
    surface: 'tool',
    meaning:
      'An MCP server could not be started or reached, or did not list its tools; the message says which and why.',
  },
  'mcp-timeout': { surface: 'tool', meaning: 'An MCP server did not answer a call within its `timeout_secs`.' },
  'mcp-bad-result': {
    surface: 'tool',
    meaning: 'An MCP server answered a call with something that is not an MCP result.',
  },
  // Web tools (docs/reference/web.md#errors)
  'web-host-refused': {
    surface: 'tool',
    meaning: 'The URL is not http(s), or its host is outside `[web] allow_hosts` or inside `deny_hosts`.',
  },
  'web-address-refused': {
    surface: 'tool',
    meaning:
      'The URL, or a redirect, leads to a private, loopback or link-local address and `[web] allow_private` is off.',
  },
  'web-fetch-failed': {
    surface: 'tool',
    meaning: 'The fetch failed: no connection, an error status, or too many redirects.',
  },
  'web-not-text': { surface: 'tool', meaning: 'The URL answered with content that is not text.' },
  'web-search-unconfigured': {
    surface: 'tool',
    meaning: '`web_search` was called but the user config names no search API (`[web.search]`).',
  },
  // Script tools (docs/reference/script-tools.md#errors)
  'script-tool-failed': {
    surface: 'tool',
    meaning: 'A script tool stopped with an error: a `throw`, an unknown variable or function, a type mismatch.',
  },
  'script-tool-limit': {
    surface: 'tool',
    meaning:
      'A script tool went over a limit: operations, call depth, a value size, its calls of host functions, or its time.',
  },
  'script-host-refused': {
    surface: 'tool',
    meaning:
      "A script tool's host function was refused (permissions, confinement, `[web]`, a withheld variable) and the script did not catch it.",
  },
  'dynamic-tool-missing': {
    surface: 'tool',
    meaning:
      "A tool the run may write (`[agent] dynamic_tools`) was called, but no script of the workdir's `tools/` declared it when the turn began.",
  },
  'dynamic-tool-changed': {
    surface: 'tool',
    meaning:
      "A tool the run wrote changed or was removed from the workdir's `tools/` between the turn that offered it and its call; the call did not run.",
  },
  'output-invalid': {
    surface: 'tool',
    meaning: 'A `submit_output` answer failed its format or schema check; the reason says what to fix.',
  },
  'output-too-large': { surface: 'tool', meaning: 'A `submit_output` answer is larger than 256 KiB.' },
  'stage-hook-failed': {
    surface: 'run',
    meaning:
      'A stage hook refused (`false`, `cancel`, `retry`), failed, or returned something else; the run ended in error.',
  },
  // Blobs
  'blob-bad-hash': { surface: 'run', meaning: 'A blob reference is not a content hash.' },
  'blob-missing': { surface: 'run', meaning: 'The blob store has no blob with that hash.' },
  'blob-corrupt': { surface: 'run', meaning: "A stored blob's content does not match its hash." },
  'blob-store-unavailable': {
    surface: 'run',
    meaning: 'The PostgreSQL blob store did not answer after its retries; Temporal retries the activity.',
  },
  'blob-store-refused': {
    surface: 'run',
    meaning: 'The PostgreSQL blob store refused the credentials, database or role.',
  },
  'tool-workdir-elsewhere': {
    surface: 'run',
    meaning: 'A tool worker was given a call for a workdir it does not serve.',
  },
  'tool-worker-missing': {
    surface: 'run',
    meaning:
      "No tool worker served the run's workdir for `[run] tool_worker_patience`; start `lev worker --tools --workdir DIR`.",
  },
  'user-message-too-large': {
    surface: 'diagnostic',
    meaning: "A user message is larger than the conversation's budget and was not stored.",
  },
  'model-fallback': {
    surface: 'diagnostic',
    meaning: 'A provider became unusable and the stage moved on to the next model of its chain.',
  },
  'fan-out-empty': {
    surface: 'diagnostic',
    meaning: 'A fan-out stage ended without a `fan_out` call after its attempts; the run went on with no workers.',
  },
  'fan-out-failed': {
    surface: 'diagnostic',
    meaning: 'A worker of a fan-out stage with `on_worker_failure = "fail"` failed; the others were cancelled.',
  },
  'output-forced': {
    surface: 'diagnostic',
    meaning: 'A stage that owes an answer ended without one after its reminders.',
  },
  'seed-file-not-utf8': {
    surface: 'seed',
    meaning: 'A seeded file is not valid UTF-8; it was read with replacement characters.',
  },
  // CLI
  'bad-input': { surface: 'cli', meaning: '`--input` was not `key=value`.' },
  'blueprint-invalid': { surface: 'cli', meaning: 'The blueprint has validation errors; `lev validate` lists them.' },
  'server-unreachable': { surface: 'cli', meaning: 'No Temporal server answers at the address.' },
  'server-exited': { surface: 'cli', meaning: 'The Temporal dev server exited while starting.' },
  'server-timeout': { surface: 'cli', meaning: 'The Temporal dev server did not answer in time.' },
  'port-busy': { surface: 'cli', meaning: 'A port the dev server needs is in use.' },
  'events-unreadable': { surface: 'cli', meaning: 'The events file of `lev context simulate` cannot be read.' },
  'temporal-cli-not-found': { surface: 'cli', meaning: 'The Temporal CLI could not be found or installed.' },
  'workdir-not-a-directory': { surface: 'cli', meaning: '`--workdir` names a file, not a directory.' },
  'workdir-id-bad': {
    surface: 'cli',
    meaning: "The workdir's `.leviath/workdir-id` holds no identity; delete it and a new one is written.",
  },
  'blobs-bad-store': {
    surface: 'cli',
    meaning: '`LEVIATH_BLOBS` or `[runtime] blobs` is neither `local` nor a `postgres://` URL.',
  },
  'blobs-gc-needs-postgres': { surface: 'cli', meaning: '`lev blobs gc` runs only against the PostgreSQL store.' },
  'tls-incomplete': { surface: 'cli', meaning: 'Only half of a TLS client certificate and key pair was given.' },
  'tls-unreadable': { surface: 'cli', meaning: 'A TLS PEM file named in the environment cannot be read.' },
  'codec-key-unreadable': { surface: 'cli', meaning: 'The codec key file cannot be read.' },
  'codec-key-bad': {
    surface: 'cli',
    meaning: 'A line of the codec key file is not a key id and a base64 key of 32 bytes, or a key does not decrypt.',
  },
  'codec-unknown-key': {
    surface: 'cli',
    meaning: 'A payload or blob was encrypted with a key the key file does not hold.',
  },
  'codec-not-configured': { surface: 'cli', meaning: '`lev codec-server` was started without a codec key file.' },
  'blob-encrypted': { surface: 'cli', meaning: 'A blob is encrypted and this process has no codec key.' },
  'temporal-profile-bad': {
    surface: 'cli',
    meaning: 'The temporal.toml connection profile cannot be loaded, or does not hold the profile named.',
  },
  'metrics-bad-address': { surface: 'cli', meaning: '`--metrics` or `LEVIATH_METRICS_ADDRESS` is not `HOST:PORT`.' },
  'deployment-bad': {
    surface: 'cli',
    meaning: '`--deployment` or `LEVIATH_DEPLOYMENT` holds a `.`, or `--build-id` was given without a deployment.',
  },
  'mcp-server-unknown': {
    surface: 'cli',
    meaning: '`lev mcp test` names a server your config does not declare in `[[mcp_servers]]`.',
  },
  'run-not-found': { surface: 'cli', meaning: 'No run with that id is known to the Temporal server.' },
  'run-not-finished': { surface: 'cli', meaning: '`lev result` was asked for a run that is still going.' },
  'unknown-status': { surface: 'cli', meaning: '`lev ps --status` names no run status.' },
  'agent-exists': { surface: 'cli', meaning: '`lev add` was given a name an installed agent already has.' },
  'agent-not-installed': { surface: 'cli', meaning: '`lev remove` names no installed agent.' },
  'unknown-model': { surface: 'cli', meaning: '`lev models show` names a model the model table does not have.' },
  'input-file-unreadable': {
    surface: 'cli',
    meaning: 'A `lev run` value written `@FILE`, or `lev answer --file`, names a file that cannot be read.',
  },
  'answer-ambiguous': {
    surface: 'cli',
    meaning: '`lev answer` was given more than one answer (text, `--choice`, `--yes`, `--no`, `--file`).',
  },
  'output-schema-invalid': { surface: 'cli', meaning: '`lev run --output-schema` is not a JSON Schema object.' },
  'bad-agent-name': {
    surface: 'cli',
    meaning: 'The name `lev add` would install an agent under is not a plain directory name.',
  },
  'blueprint-ref-bad': {
    surface: 'cli',
    meaning: 'A blueprint name or reference is not `name` or `name@version`.',
  },
  'blueprint-ref-unknown': { surface: 'cli', meaning: 'No pushed blueprint has that name or version.' },
  'run-input-bad': {
    surface: 'cli',
    meaning: 'A run input by reference is not `{ blueprint, task, workdir, inputs }` with an absolute workdir.',
  },
  'schedule-spec-bad': {
    surface: 'cli',
    meaning:
      '`lev schedule create` got neither or both of `--every` and `--cron`, or a bad value for one, or for `--overlap`.',
  },
  'schedule-exists': { surface: 'cli', meaning: 'A schedule with that name exists already.' },
  'schedule-not-found': { surface: 'cli', meaning: 'No schedule with that name is known to the Temporal server.' },
  'notify-config-bad': {
    surface: 'cli',
    meaning: '`[notify]` of the user config is not `[[notify.webhooks]]` with a url, secret_env and events.',
  },
  'notify-secret-missing': {
    surface: 'cli',
    meaning: "A webhook's `secret_env` names a variable the delivering worker's environment lacks.",
  },
  'test-case-invalid': {
    surface: 'cli',
    meaning:
      'A `lev test` case cannot run: its file is not TOML of `[[test]]` cases, a key is unknown or missing, or it expects a tool the stage does not offer.',
  },
  'test-case-failed': {
    surface: 'cli',
    meaning: "A `lev test` case's reply missed an expectation, or a `tests/*.rhai` script returned false or failed.",
  },
  'fork-turn-unknown': {
    surface: 'cli',
    meaning: '`lev fork --turn` names no turn of the run, or one that is followed by no stage turn to start from.',
  },
  'fork-stage-unknown': { surface: 'cli', meaning: '`lev fork --stage` names a stage the run made no turn in.' },
  'title-invalid': {
    surface: 'cli',
    meaning: 'A run title (`--title`, `title` of a start request) is empty, spans lines or is over 200 bytes.',
  },
  'context-turn-unknown': {
    surface: 'cli',
    meaning: '`lev context --turn` names no turn of the run, or one whose inference its histories no longer hold.',
  },
  // Operator updates
  'run-finished': {
    surface: 'operator',
    meaning: 'The run has ended, or is writing its result; updates go only to running runs.',
  },
  'bad-update': { surface: 'operator', meaning: "An update's argument has the wrong shape." },
  'text-empty': { surface: 'operator', meaning: 'A message or an answer is empty.' },
  'text-too-large': { surface: 'operator', meaning: 'A message, an answer or a note is over 64 KiB.' },
  'nothing-pending': { surface: 'operator', meaning: 'No call waits for a decision, or no question for an answer.' },
  'call-not-waiting': { surface: 'operator', meaning: 'The call id names no call or question that waits now.' },
  'call-ambiguous': { surface: 'operator', meaning: 'Several calls or questions wait and the update named none.' },
  'bad-answer': {
    surface: 'operator',
    meaning: 'An answer does not fit its question: a choice that names no option, text for a yes/no question, ...',
  },
  'already-paused': { surface: 'operator', meaning: '`pause` was sent to a paused run.' },
  'not-paused': { surface: 'operator', meaning: '`resume` was sent to a run that is not paused.' },
  'bad-signal': {
    surface: 'operator',
    meaning: "A signal's argument had the wrong shape; the run or visit dropped it and went on.",
  },
  // Simulator
  'bad-event': { surface: 'simulator', meaning: 'A line of the events file is not a JSON event.' },
  'unknown-call': {
    surface: 'simulator',
    meaning: 'A `tool_result` names no pending call of the latest assistant turn.',
  },
  'no-edge': { surface: 'simulator', meaning: 'A `gate` event names a stage the current one has no edge to.' },
  'seed-not-simulated': {
    surface: 'simulator',
    meaning: 'A seed form the simulator does not resolve; a `seed` event fills the region.',
  },
  // One door for every input (issue 39): loading and connecting
  'config-invalid': {
    surface: 'cli',
    meaning: 'Your user config has errors, so no command loads a blueprint against it; `lev validate` lists them.',
  },
  'run-id-bad': {
    surface: 'cli',
    meaning: 'A run id given to a command is empty, holds spaces or control characters, or is too long (exit 2).',
  },
  'namespace-not-found': { surface: 'cli', meaning: 'The Temporal server answers but has no namespace of that name.' },
  'server-tls-mismatch': {
    surface: 'cli',
    meaning: 'TLS (or an API key) was set for a server that speaks plaintext, or none for one that speaks TLS.',
  },
  'server-auth-refused': {
    surface: 'cli',
    meaning: 'The Temporal server refused the API key, the client certificate or the authorization header.',
  },
  // Budgets see everything the model sees (issue 39)
  'mcp-result-too-large': {
    surface: 'tool',
    meaning:
      "An MCP tool's answer was larger than its server's transport carries; the call ran once and was not sent again.",
  },
  'mcp-tool-trimmed': {
    surface: 'tool',
    meaning: "An MCP tool's description or input schema was over its cap and was trimmed in what the model is offered.",
  },
  'custom-render-over-budget': {
    surface: 'diagnostic',
    meaning:
      "A custom region's `render` returned more tokens than the region's budget; the rest was cut, with a line that says so.",
  },
  'codec-key-missing': {
    surface: 'cli',
    meaning:
      'A process without the codec key met an encrypted payload: a command stops, a worker fails that task retryably and stops polling.',
  },
  // A package that runs where it is installed (issue 40)
  'build-missing': {
    surface: 'cli',
    meaning:
      'An installed leviath package has no compiled build in `dist/` (it was packed without its prepack); `lev` stops before running anything.',
  },
  'sdk-not-installed': {
    surface: 'provider',
    meaning:
      "A provider's npm SDK (`openai`, `@anthropic-ai/sdk`, `@google/genai`) was left out of the install with --omit=optional; the inference call fails without a retry.",
  },
  // lev serve, the HTTP front door (issue 41)
  'serve-token-required': {
    surface: 'cli',
    meaning:
      '`lev serve` was asked to listen beyond loopback without a bearer token (`--token` or `LEVIATH_SERVE_TOKEN`).',
  },
  'serve-port-busy': { surface: 'cli', meaning: 'The port `lev serve` was asked to listen on is in use.' },
  'serve-unauthorized': {
    surface: 'cli',
    meaning:
      'A request to `lev serve` lacked its bearer token or gave another, or without a token named a host that is not this machine.',
  },
  'serve-bad-request': {
    surface: 'cli',
    meaning:
      'A request to `lev serve` has a query or body that does not fit its route, a body that is not JSON, or a bad event offset.',
  },
  'serve-not-found': {
    surface: 'cli',
    meaning: '`lev serve` has no route of that method and path, or its page no file of that name.',
  },
  'serve-failed': {
    surface: 'cli',
    meaning: '`lev serve` met an unexpected error answering a request; its log has the details.',
  },
} as const satisfies Record<string, RuntimeCodeInfo>;

export type RuntimeCode = keyof typeof RUNTIME_CODES;

export function isRuntimeCode(code: string): code is RuntimeCode {
  return Object.hasOwn(RUNTIME_CODES, code);
}
