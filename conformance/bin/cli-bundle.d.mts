/** The path of the CLI bundle (dist/conformance-cli.mjs). */
export declare const CLI_BUNDLE: string;
/** Whether the bundle exists and no file it was built from changed after it was built. */
export declare function cliBundleIsFresh(): boolean;
/** Builds the bundle from the sources now; returns its path. */
export declare function buildCliBundle(): Promise<string>;
/** The bundle's path, built first when stale; undefined when it cannot be built here. */
export declare function freshCliBundle(): Promise<string | undefined>;
