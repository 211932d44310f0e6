export {
  TesseraClient, type EvaluationProgress, type FileType, type InvokeOptions, type Kind, type RevisionRef, type StartEvaluationOptions,
  type TesseraClientOptions, type TestsetDeltaOptions,
} from "./client.ts";
export type { Config, ConfigData, ConfigSource, FallbackConfig, GetConfigOptions, RevisionSelector } from "./config.ts";
export { TesseraError, TesseraNetworkError } from "./errors.ts";
export type { FileBody } from "./multipart.ts";
export type { Snapshot, SnapshotEntry } from "./snapshot.ts";
export type { components, paths } from "./openapi.ts";
