// GEN-001: a non-empty body is JSON, under a JSON content type.
import type { GenericCheck } from './check.js';

const JSON_CONTENT_TYPE = /(^application\/json\b)|(\+json\b)|(^application\/[\w.-]*json\b)/i;

export const bodyIsJson: GenericCheck = {
  requirement: 'GEN-001',
  name: 'body_is_json',
  description: 'a non-empty response body parses as JSON and is sent with a JSON content type',
  run(x, out) {
    const { input, body, where } = x;
    if (body.empty) return; // an empty body is no body (e.g. 202 of QueueBindQuote)
    out.checked.push('GEN-001');
    if (body.parseError !== undefined) {
      out.violations.push({
        code: 'GEN-001',
        message: `[GEN-001] ${where}: body is not JSON (${body.parseError}); body starts ${JSON.stringify(input.bodyText.slice(0, 120))}`,
      });
      return;
    }
    const typeOk = input.contentType !== null && JSON_CONTENT_TYPE.test(input.contentType.trim());
    if (!typeOk) {
      out.violations.push({
        code: 'GEN-001',
        message: `[GEN-001] ${where}: JSON body with content type ${JSON.stringify(input.contentType)} (expected application/json or +json)`,
      });
    }
  },
};
