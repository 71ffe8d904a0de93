/**
 * Which route a request names: the method and the path, segment by segment,
 * a `{param}` segment taking one percent-decoded segment (a sub-agent's run
 * id holds a `/`, sent as `%2F`).
 */
import type { Route } from './api-routes.js';

export interface Matched {
  route: Route;
  params: Record<string, string>;
}

function segments(path: string): string[] {
  return path.split('/').slice(1);
}

/** The route and its decoded parameters; undefined when none matches (a bad escape matches nothing). */
export function matchRoute(routes: readonly Route[], method: string, pathname: string): Matched | undefined {
  const got = segments(pathname);
  for (const route of routes) {
    if (route.method !== method) continue;
    const want = segments(route.path);
    if (want.length !== got.length) continue;
    const params: Record<string, string> = {};
    let fits = true;
    for (let i = 0; i < want.length && fits; i++) {
      const w = want[i] as string;
      const g = got[i] as string;
      const param = /^\{(\w+)\}$/.exec(w)?.[1];
      if (!param) fits = w === g;
      else {
        try {
          params[param] = decodeURIComponent(g);
          fits = g !== '';
        } catch {
          fits = false;
        }
      }
    }
    if (fits) return { route, params };
  }
  return undefined;
}
