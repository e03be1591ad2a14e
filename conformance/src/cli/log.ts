// Where the command line writes its progress and errors: stderr, so stdout holds only the output.
export const log = (s: string) => process.stderr.write(`${s}\n`);
