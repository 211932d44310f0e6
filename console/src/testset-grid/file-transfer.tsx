import { useState } from "preact/hooks";
import { downloadRevision, fileTypeOf, uploadRevision, type FileType, type UploadState } from "./transfer.ts";
import { UploadStatus } from "./upload-status.tsx";

/** Upload a file as the next revision (with progress) and download this one as CSV, JSON or JSON Lines. */
export function FileTransfer(props: { revisionId: string; slug: string; version: string; onUploaded: (revisionId: string) => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<UploadState | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [downloadType, setDownloadType] = useState<FileType>("csv");
  const [busy, setBusy] = useState(false);

  const upload = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    setError(null);
    setProgress({ sent: 0, total: file.size });
    try {
      const revision = await uploadRevision(props.revisionId, file, fileTypeOf(file.name), "", setProgress);
      setFile(null);
      props.onUploaded(revision.id);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setProgress(null);
    }
  };
  const download = async () => {
    setError(null);
    setBusy(true);
    try {
      await downloadRevision(props.revisionId, downloadType, `${props.slug}-v${props.version}.${downloadType}`);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="tg-files" aria-labelledby="tg-files-title">
      <h2 id="tg-files-title">Files</h2>
      {error && <div class="banner banner-error" role="alert">{error}</div>}
      <form class="tg-inline" onSubmit={upload}>
        <label for="tg-file">Upload as next revision (CSV, JSON, JSON Lines)</label>
        <input id="tg-file" type="file" accept=".csv,.json,.jsonl,.ndjson,text/csv,application/json"
          onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        <button type="submit" disabled={!file || progress !== null}>Upload</button>
        {progress && <UploadStatus state={progress} />}
      </form>
      <div class="tg-inline">
        <label for="tg-download-type">Download this revision as</label>
        <select id="tg-download-type" value={downloadType} onChange={(e) => setDownloadType(e.currentTarget.value as FileType)}>
          <option value="csv">CSV</option>
          <option value="json">JSON</option>
          <option value="jsonl">JSON Lines</option>
        </select>
        <button type="button" onClick={download} disabled={busy}>Download</button>
      </div>
    </section>
  );
}
