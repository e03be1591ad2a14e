// POST /_provider-states (architecture section 5, Pact v3): only when the server runs with
// --provider-states; no token needed.
import type { Hono } from 'hono';
import type { AppEnv, Deps } from '../deps.js';
import { ApiError } from '../errors.js';
import { readJsonBody, validateStateParams } from '../validation.js';
import { FILE_STATES } from './files.js';
import { LINK_STATES } from './links.js';
import { PROPOSAL_STATES } from './proposals.js';
import { RECORD_STATES } from './records.js';
import { answerFor, paramsFor } from './protocol.js';
import { defaultTeardown, makeContext, type StateDef, type StateOptions } from './registry.js';
import { SETTING_STATES } from './settings.js';
import { USER_STATES } from './users.js';

/** Every state of spec/provider-states.yaml, by name: registered here, explicitly. */
export const PROVIDER_STATES = new Map<string, StateDef>(
  Object.entries({
    ...USER_STATES,
    ...RECORD_STATES,
    ...FILE_STATES,
    ...LINK_STATES,
    ...SETTING_STATES,
    ...PROPOSAL_STATES,
  }),
);

export function registerProviderStates(
  app: Hono<AppEnv>,
  deps: Deps,
  options: StateOptions = { mode: 'full', singleIdSequence: false },
): void {
  app.post('/_provider-states', async (c) => {
    const body = await readJsonBody(c);
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      throw new ApiError(400, 'MalformedRequest', 'The body must be an object {state, params, action}.');
    }
    const { state, params: rawParams, action: rawAction } = body as Record<string, unknown>;
    if (typeof state !== 'string' || !state)
      throw new ApiError(400, 'MalformedRequest', "'state' must be a non-empty string.");
    const action = rawAction ?? 'setup';
    if (action !== 'setup' && action !== 'teardown') {
      throw new ApiError(400, 'MalformedRequest', "'action' must be 'setup' or 'teardown'.");
    }
    if (rawParams !== undefined && rawParams !== null && (typeof rawParams !== 'object' || Array.isArray(rawParams))) {
      throw new ApiError(400, 'MalformedRequest', "'params' must be an object.");
    }
    const def = PROVIDER_STATES.get(state);
    if (!def) throw new ApiError(400, 'MalformedRequest', `Unknown provider state '${state}'.`);
    // An endpoint of an older protocol does not know the newer params: it acts as if they were absent.
    const params = paramsFor(options.mode, state, {
      ...((rawParams as Record<string, unknown> | null | undefined) ?? {}),
    });
    if (params.setupId === undefined) params.setupId = '';
    const ctx = makeContext(deps, state, params, options);
    if (action === 'teardown') {
      def.teardown?.(params, ctx);
      defaultTeardown(ctx, state, params);
      return c.json({});
    }
    validateStateParams(state, params);
    try {
      const values = await def.setup(params, ctx);
      return c.json(answerFor(options.mode, state, params, values ?? {}));
    } catch (err) {
      // A failed setup leaves nothing behind.
      try {
        def.teardown?.(params, ctx);
      } catch {
        /* ignore */
      }
      defaultTeardown(ctx, state, params);
      throw err;
    }
  });
}
