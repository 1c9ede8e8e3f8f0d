// Matches a request path against the route templates; literal segments win over `{param}` segments.
import type { HttpMethod, RouteDefinition } from './route-module';

interface CompiledRoute {
  route: RouteDefinition;
  segments: Array<{ literal: string } | { param: string }>;
}

export type RouteMatch =
  | { kind: 'matched'; route: RouteDefinition; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: HttpMethod[] }
  | { kind: 'not_found' };

export class RouteTable {
  private readonly routes: CompiledRoute[] = [];

  add(route: RouteDefinition): void {
    const segments = splitPath(route.path).map((s) => {
      const m = /^\{([a-z_]+)\}$/.exec(s);
      return m ? { param: m[1] } : { literal: s };
    });
    const clash = this.routes.find((r) => r.route.method === route.method && r.route.path === route.path);
    if (clash) throw new Error(`route ${route.method} ${route.path} is registered twice`);
    this.routes.push({ route, segments });
  }

  get all(): RouteDefinition[] {
    return this.routes.map((r) => r.route);
  }

  match(method: string, path: string): RouteMatch {
    const parts = splitPath(path);
    let decoded: string[];
    try {
      decoded = parts.map((p) => decodeURIComponent(p));
    } catch {
      return { kind: 'not_found' };
    }
    const candidates: Array<{ c: CompiledRoute; params: Record<string, string>; score: string }> = [];
    for (const c of this.routes) {
      if (c.segments.length !== decoded.length) continue;
      const params: Record<string, string> = {};
      let score = '';
      let ok = true;
      for (let i = 0; i < decoded.length && ok; i++) {
        const seg = c.segments[i];
        if ('literal' in seg) {
          ok = seg.literal === decoded[i];
          score += '1';
        } else {
          ok = decoded[i].length > 0;
          params[seg.param] = decoded[i];
          score += '0';
        }
      }
      if (ok) candidates.push({ c, params, score });
    }
    if (candidates.length === 0) return { kind: 'not_found' };
    const best = candidates.reduce((a, b) => (b.score > a.score ? b : a)).score;
    const top = candidates.filter((x) => x.score === best);
    const hit = top.find((x) => x.c.route.method === method);
    if (hit) return { kind: 'matched', route: hit.c.route, params: hit.params };
    const anyMethod = candidates.find((x) => x.c.route.method === method);
    if (anyMethod) return { kind: 'matched', route: anyMethod.c.route, params: anyMethod.params };
    return { kind: 'method_not_allowed', allowed: [...new Set(top.map((x) => x.c.route.method))] };
  }
}

const splitPath = (path: string) => path.split('/').slice(1);
