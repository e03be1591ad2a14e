// The column language moved to columns/ (one file per idea: column-list, select-builder,
// output-columns, download-url, record-read, select-records, sort-list, paging, empty-columns).
// This re-export stays only for provider-states/records.ts, which another branch was editing at
// the time of the split: point that import at './columns/select-builder.js' and delete this file.
export { SelectBuilder } from './columns/select-builder.js';
