// Temporary: the names kv.ts held now live in the files below; the last commit of this branch
// rewrites every import and deletes this file.
export { AppError, type ErrorKind, invalid } from "./errors.ts";
export { isUlid, randomToken, ulid, ulidAt } from "./ids.ts";
export { nowIso } from "./time.ts";
export { isKvConnectUrl, kvFolder, openKv } from "./open_kv.ts";
export { RETRY_BUDGET_MS, retryLocked } from "./retry.ts";
export {
  checkStored,
  getAll,
  listAll,
  listEntries,
  listPage,
  type Page,
  readKey,
  readKeys,
} from "./reads.ts";
export { type Attempt, commitWithRetry, StaleRead, type WriteQueue } from "./commit.ts";
export { deleteUnder, resetExpiry } from "./bulk_writes.ts";
