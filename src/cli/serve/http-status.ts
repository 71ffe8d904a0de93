/**
 * The HTTP status `lev serve` answers a coded error with
 * (docs/reference/http-api.md#errors): the body is always `{ code, message }`
 * with the code the CLI prints; the status only sorts it for HTTP clients.
 */

const STATUS: Readonly<Record<string, number>> = {
  'serve-unauthorized': 401,
  'run-not-found': 404,
  'blueprint-ref-unknown': 404,
  'serve-not-found': 404,
  'schedule-not-found': 404,
  // The run is not in a state that takes the request.
  'run-finished': 409,
  'run-not-finished': 409,
  'nothing-pending': 409,
  'call-not-waiting': 409,
  'call-ambiguous': 409,
  'already-paused': 409,
  'not-paused': 409,
  'blueprint-invalid': 422,
  'config-invalid': 422,
  // The Temporal server behind lev serve did not answer as it should.
  'server-unreachable': 502,
  'namespace-not-found': 502,
  'server-tls-mismatch': 502,
  'server-auth-refused': 502,
  'codec-key-missing': 500,
  'serve-failed': 500,
};

/** 400 for any other code: the request asked for something the CLI would refuse too. */
export function httpStatus(code: string): number {
  return STATUS[code] ?? 400;
}
