// chrome-har (sitespeed.io) ships no types: the one function the browser test uses.
declare module 'chrome-har' {
  export function harFromMessages(
    messages: Array<{ method: string; params: unknown }>,
    options?: { includeTextFromResponseBody?: boolean },
  ): unknown;
}
