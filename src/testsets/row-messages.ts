import type { StoredColumns } from "./columns.ts";
import type { FileType } from "./import.ts";
import type { ClaimedRow, RowOwner } from "./row-block.ts";

/** What the main thread sends an upload thread (row-thread.ts). */
export type ToRowThread =
  | { type: "start"; job: number; fileType: FileType; owner: RowOwner; limits: { row: number; cell: number } }
  | { type: "chunk"; job: number; bytes: Uint8Array }
  | { type: "end"; job: number }
  | { type: "abort"; job: number };

/** What an upload thread answers: requests for bytes, blocks of rows, then the ids and columns or a failure. */
export type FromRowThread =
  | { type: "more"; job: number }
  | { type: "rows"; job: number; range: number; copy: Uint8Array; rows: number; claimed: ClaimedRow[] }
  | { type: "done"; job: number; ids: Uint8Array; count: number; columns: StoredColumns }
  | { type: "failed"; job: number; status: number | null; detail: unknown; message: string };
