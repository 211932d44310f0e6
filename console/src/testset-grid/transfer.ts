/**
 * Files in and out of a revision. Uploads go through XMLHttpRequest, whose upload progress events fetch does
 * not offer, and ask for the server's progress as lines (`application/x-ndjson`): once the file is parsed, the
 * rows stored so far, then the answer. Downloads are fetched with the key in the Authorization header (never in
 * a URL) and saved from a Blob.
 */
import { detailMessage } from "../api.ts";
import { apiKey } from "../session.ts";

export type FileType = "csv" | "json" | "jsonl";

/** Where an upload stands: bytes sent, then (from the server) rows stored out of the file's rows, then the commit. */
export interface UploadState {
  sent: number;
  total: number;
  rows?: number;
  stored?: number;
  committing?: boolean;
}

/** The file type a name suggests (csv when it says nothing). */
export function fileTypeOf(name: string): FileType {
  const ext = name.toLowerCase().split(".").pop();
  return ext === "json" || ext === "jsonl" ? ext : ext === "ndjson" ? "jsonl" : "csv";
}

/** Commits `file` as the next revision after `revisionId`; `progress` follows the upload. Answers the new revision. */
export function uploadRevision(
  revisionId: string, file: File, fileType: FileType, message: string, progress: (state: UploadState) => void,
): Promise<{ id: string; version: string }> {
  const form = new FormData();
  form.append("file_type", fileType);
  form.append("message", message || `Upload ${file.name}`);
  form.append("include_testcases", "false");
  form.append("file", file, file.name);
  const path = `/testsets/revisions/${encodeURIComponent(revisionId)}/upload`;
  return postForm(path, form, progress).then((body) => {
    if (!body?.testset_revision) throw new Error("The server answered without the new revision");
    return body.testset_revision;
  });
}

/** The complete lines of a streamed answer so far, parsed (a line still arriving is left for later). */
function progressLines(text: string): any[] {
  const complete = text.slice(0, text.lastIndexOf("\n") + 1);
  return complete.split("\n").filter(Boolean).map((line) => JSON.parse(line));
}

/**
 * POSTs a multipart form to `/api${path}` with the session's key; `progress` follows the bytes sent, then the
 * server's storing of the rows. Answers the body of a 2xx (or the streamed answer); otherwise rejects with the
 * server's `detail`.
 */
export function postForm(path: string, form: FormData, progress: (state: UploadState) => void): Promise<any> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    let state: UploadState = { sent: 0, total: 0 };
    const report = (change: Partial<UploadState>) => progress(state = { ...state, ...change });
    const streamed = () => (xhr.getResponseHeader("content-type") ?? "").includes("application/x-ndjson");
    xhr.open("POST", `/api${path}`);
    xhr.setRequestHeader("authorization", `ApiKey ${apiKey() ?? ""}`);
    xhr.setRequestHeader("accept", "application/x-ndjson, application/json");
    xhr.upload.onprogress = (event) => report({ sent: event.loaded, total: event.total });
    xhr.onprogress = () => {
      if (!streamed()) return;
      const last = progressLines(xhr.responseText).at(-1);
      if (last?.stage === "storing") report({ sent: state.total, rows: last.rows, stored: last.stored });
      else if (last?.stage === "committing") {
        report({ sent: state.total, rows: last.rows, stored: last.rows, committing: true });
      }
    };
    xhr.onerror = () => reject(new Error("The upload failed: the server cannot be reached."));
    xhr.onload = () => {
      let body: any;
      try {
        body = streamed() ? progressLines(xhr.responseText + "\n").at(-1) : JSON.parse(xhr.responseText);
      } catch {
        body = undefined;
      }
      if (streamed() && body?.stage === "done") resolve(body.answer);
      else if (streamed() && body?.stage === "failed") reject(new Error(detailMessage(body.detail)));
      else if (!streamed() && xhr.status >= 200 && xhr.status < 300) resolve(body);
      else reject(new Error(body?.detail !== undefined ? detailMessage(body.detail) : `The server answered ${xhr.status}`));
    };
    xhr.send(form);
  });
}

/** Downloads the revision as a file and hands it to the browser to save. */
export async function downloadRevision(revisionId: string, fileType: FileType, fileName: string): Promise<void> {
  const query = new URLSearchParams({ file_type: fileType, file_name: fileName });
  const res = await fetch(`/api/testsets/revisions/${encodeURIComponent(revisionId)}/download?${query}`, {
    method: "POST",
    headers: { authorization: `ApiKey ${apiKey() ?? ""}` },
  });
  if (!res.ok) {
    const text = await res.text();
    let detail: unknown = text || res.statusText;
    try {
      detail = JSON.parse(text).detail ?? detail;
    } catch {
      // not JSON: the text itself
    }
    throw new Error(detailMessage(detail));
  }
  const url = URL.createObjectURL(await res.blob());
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
