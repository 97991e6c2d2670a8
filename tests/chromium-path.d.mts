export declare function executable(path: string): boolean;
/** Where the browser tests find Chromium: CHROMIUM_PATH, else Debian's or Ubuntu's usual paths. */
export declare function findChromium(): string | undefined;
