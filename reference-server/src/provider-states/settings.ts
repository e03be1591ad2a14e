// Provider state 'a setting': set a service setting; teardown restores the previous value.
import { ApiError } from '../errors.js';
import { SETTING_NAMES, setSetting } from '../settings.js';
import type { StateDef } from './registry.js';
import { own } from '../own.js';

const RESTORE = '$setting';

const aSetting: StateDef = {
  setup(params, ctx) {
    const name = params.name;
    const field = typeof name === 'string' ? own(SETTING_NAMES, name) : undefined;
    if (typeof name !== 'string' || !field) {
      throw new ApiError(
        400,
        'MalformedRequest',
        `Unknown setting '${String(name)}'; known: ${Object.keys(SETTING_NAMES).join(', ')}.`,
      );
    }
    if (typeof params.value !== 'boolean') throw new ApiError(400, 'MalformedRequest', "'value' must be a boolean.");
    ctx.trackData(RESTORE, 0, { name, previous: ctx.deps.settings[field] });
    setSetting(ctx.deps.db, ctx.deps.settings, name, params.value);
    return {};
  },
  teardown(_params, ctx) {
    // Restore in reverse order, so the oldest saved value wins.
    for (const t of ctx.tracked(RESTORE).reverse()) {
      const { name, previous } = t.data as { name: string; previous: unknown };
      setSetting(ctx.deps.db, ctx.deps.settings, name, previous);
    }
  },
};

/** The states of this file, registered by provider-states/index.ts. */
export const SETTING_STATES: Record<string, StateDef> = {
  'a setting': aSetting,
};
