// Types for bundle-size.mjs (used by the TypeScript tests).
export interface AppSize {
  bytes: number;
  gzip: number;
  /** The inline WebAssembly core is in the bundle. */
  wasm: boolean;
  byPackage: Record<string, number>;
  /** protokeel's modules in the bundle, as paths under dist/. */
  modules: string[];
}
export declare const APPS: Record<string, { source: string; conditions?: string[] }>;
export declare const INLINE_WASM_MARK: string;
export declare function measureApps(apps?: Record<string, { source: string; conditions?: string[] }>): Promise<Record<string, AppSize>>;
export declare function distGroups(files?: string[]): Record<string, string[]>;
export declare function measureDist(groups?: Record<string, string[]>): Record<string, { files: number; bytes: number; gzip: number }>;
