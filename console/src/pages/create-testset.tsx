import { useState } from "preact/hooks";
import { api, messageOf } from "../api.ts";
import { emptyNaming, NameFields, namingError, type Naming } from "../create/name-fields.tsx";
import { slugOf } from "../create/slug.ts";
import { GridDraftEditor, testcasesOf, type GridDraft } from "../create/testset-draft.tsx";
import { Link } from "../components/link.tsx";
import { hrefOf, navigate, type ViewProps } from "../router.ts";
import { fileTypeOf, postForm, type UploadState } from "../testset-grid/transfer.ts";
import { UploadStatus } from "../testset-grid/upload-status.tsx";

type Start = "file" | "grid";

/**
 * `/testsets/new?from=file|grid`: a first CSV, JSON or JSON Lines file uploaded with its progress, or an empty
 * grid of named columns filled in by hand. "Create" commits the first revision and opens its rows.
 */
export function CreateTestsetPage({ query }: ViewProps) {
  const from: Start = query.get("from") === "grid" ? "grid" : "file";
  const [naming, setNaming] = useState<Naming>(emptyNaming);
  const [file, setFile] = useState<File | null>(null);
  const [grid, setGrid] = useState<GridDraft>({ columns: [], rows: [[]] });
  const [progress, setProgress] = useState<UploadState | null>(null);
  const [error, setError] = useState<string | null>(null);

  const pickFile = (picked: File | null) => {
    setFile(picked);
    const base = picked?.name.replace(/\.[^.]*$/, "") ?? "";
    if (picked && !naming.name) setNaming({ name: base, slug: slugOf(base), typed: false });
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    const problem = namingError(naming);
    if (problem) return setError(problem);
    const header = { slug: naming.slug, name: naming.name.trim() };
    try {
      let id: string;
      if (from === "file") {
        if (!file) return setError("Choose a file to upload.");
        const form = new FormData();
        form.append("file_type", fileTypeOf(file.name));
        form.append("testset_name", header.name);
        form.append("testset_slug", header.slug);
        form.append("file", file, file.name);
        setProgress({ sent: 0, total: file.size });
        const track = (state: UploadState) => setProgress({ ...state, total: state.total || file.size });
        id = (await postForm("/simple/testsets/upload", form, track)).testset.id;
      } else {
        const rows = testcasesOf(grid);
        if (!rows.testcases) return setError(rows.error!);
        setProgress({ sent: 0, total: 0 });
        const answer = await api<{ testset: { id: string } }>("POST", "/simple/testsets/", {
          testset: { ...header, data: { testcases: rows.testcases } },
        });
        id = answer.testset.id;
      }
      navigate(`/testsets/${id}/rows`);
    } catch (e) {
      setError(messageOf(e));
      setProgress(null);
    }
  };

  return (
    <form class="create" noValidate onSubmit={submit} aria-labelledby="create-title">
      <p class="crumbs"><Link href="/registry?kind=testsets">Registry</Link></p>
      <h1 id="create-title">New testset</h1>
      <nav aria-label="Start from" class="tabs">
        <Link href={hrefOf("/testsets/new", { from: "file" })}
          aria-current={from === "file" ? "page" : undefined}>Upload a file</Link>
        <Link href={hrefOf("/testsets/new", { from: "grid" })}
          aria-current={from === "grid" ? "page" : undefined}>Start from an empty grid</Link>
      </nav>
      {from === "file" ? (
        <div class="field">
          <label for="create-file">File (CSV, JSON or JSON Lines)</label>
          <input id="create-file" type="file" accept=".csv,.json,.jsonl,.ndjson,text/csv,application/json"
            onChange={(e) => pickFile(e.currentTarget.files?.[0] ?? null)} />
          <p class="muted field-hint">
            A CSV's first line names the columns; a JSON file is a list of objects, JSON Lines one object a line.
          </p>
        </div>
      ) : (
        <GridDraftEditor draft={grid} onChange={(g) => { setGrid(g); setError(null); }} />
      )}
      <NameFields naming={naming} onChange={setNaming} what="testset" />
      {error && <div class="banner banner-error" role="alert">{error}</div>}
      {progress && from === "file" && (
        <p><UploadStatus state={progress} /></p>
      )}
      <div class="create-actions">
        <button type="submit" class="button-primary"
          disabled={progress !== null}>{progress ? "Creating…" : "Create testset"}</button>
        <Link href="/registry?kind=testsets">Cancel</Link>
      </div>
    </form>
  );
}
