// GET /api/Domains: the domains the user can access (View), {List: [...]}.
import type { Hono } from 'hono';
import type { AppEnv, Deps } from '../deps.js';
import { can } from '../auth.js';
import { validateQuery } from '../validation.js';

// REQ: DOM-003
// REQ: DOM-007
// REQ: DOM-008
// REQ: DOM-009
export function register(app: Hono<AppEnv>, deps: Deps): void {
  app.get('/api/Domains', (c) => {
    validateQuery(c, 'get', '/api/Domains');
    const user = c.get('user');
    const list = deps.dict
      .all()
      .filter((d) => can(user, d.name, 'View'))
      .sort((a, b) => a.id - b.id)
      .map((d) => ({ DomainID: d.id, Name: d.name, DisplayNameSingular: d.singular, DisplayNamePlural: d.plural }));
    return c.json({ List: list });
  });
}
