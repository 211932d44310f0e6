import { useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import type { Artifact } from "../artifacts.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Link } from "../components/link.tsx";
import type { Revision } from "../revisions.ts";
import { evaluateRows } from "./evaluate-rows.ts";
import type { TestsetRow } from "./testset-rows.ts";

/** The selected rows, and the button that runs them through the committed revision as an evaluation run. */
export function EvaluateSelection(props: {
  testset: Artifact; rows: TestsetRow[]; revision: Revision; changed: boolean; onClear: () => void;
}) {
  const { rows, revision } = props;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [run, setRun] = useState<string | null>(null);
  const plural = rows.length === 1 ? "row" : "rows";
  const start = async () => {
    setBusy(true);
    setError(null);
    setRun(null);
    try {
      setRun(await evaluateRows(props.testset, rows, revision));
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="pg-batch" aria-label="Selected rows" role="group">
      <ErrorBanner message={error} />
      <p class="pg-batch-row">
        <strong>{rows.length} {plural} selected</strong>
        <button type="button" class="button-small button-quiet" onClick={props.onClear}>Clear</button>
        <button type="button" class="button-primary" disabled={busy} onClick={start}>
          {busy ? "Starting…" : `Evaluate ${rows.length} ${plural} with v${revision.version}`}
        </button>
      </p>
      {props.changed && (
        <p class="muted pg-batch-note">
          An evaluation runs committed revisions: commit the draft to evaluate your edits.
        </p>
      )}
      {run && (
        <p class="banner banner-success" role="status">
          Evaluation started. <Link href={`/evaluations/${run}`}>Open the evaluation run</Link>
        </p>
      )}
    </div>
  );
}
