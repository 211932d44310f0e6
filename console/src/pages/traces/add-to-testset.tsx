/**
 * Selected traces as testset rows: each root span's inputs become the row's columns and its outputs the expected
 * answer column, committed as the next revision of a chosen testset (the delta commit the grid uses) or as the
 * first revision of a new one, with a message; then the new revision's rows are shown.
 */
import { useState } from "preact/hooks";
import { api, messageOf, useApi } from "../../api.ts";
import { queryArtifacts } from "../../artifacts.ts";
import { slugOf } from "../../create/slug.ts";
import { ErrorBanner } from "../../components/error-banner.tsx";
import { navigate } from "../../router.ts";
import { dataOf, type Span } from "../../traces.ts";

/** Names a testset commonly gives the expected answer, in the order they are preferred. */
const ANSWER_COLUMNS = ["correct_answer", "expected_output", "expected", "answer", "ground_truth", "reference"];
const HIDDEN = new Set(["testcase_dedup_id", "__id__"]);

/** A trace's row: its inputs' fields (or `inputs` when they are not an object) and its outputs under `answer`. */
export function rowOf(span: Span, answer: string): Record<string, unknown> {
  const inputs = dataOf(span, "inputs");
  const row: Record<string, unknown> = inputs && typeof inputs === "object" && !Array.isArray(inputs)
    ? { ...(inputs as Record<string, unknown>) }
    : { inputs: inputs ?? null };
  row[answer] = dataOf(span, "outputs") ?? null;
  return row;
}

/** The columns of a testset's first row (its latest revision), to name the answer column as the testset does. */
async function columnsOf(testsetId: string, signal: AbortSignal): Promise<string[]> {
  const answer = await api<{ testcases: { data?: Record<string, unknown> }[] }>("POST", "/testcases/query", {
    testset_id: testsetId, windowing: { limit: 1 },
  }, { signal });
  return Object.keys(answer.testcases[0]?.data ?? {}).filter((name) => !HIDDEN.has(name));
}

export function AddToTestset(props: { traces: Span[]; onCancel: () => void }) {
  const testsets = useApi((signal) => queryArtifacts("testsets", { limit: 200 }, signal), []);
  const [testsetId, setTestsetId] = useState("");
  const [name, setName] = useState("");
  const [answerColumn, setAnswerColumn] = useState<string | null>(null);
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const columns = useApi((signal) => (testsetId ? columnsOf(testsetId, signal) : Promise.resolve([])), [testsetId]);
  const known = columns.data ?? [];
  const suggested = ANSWER_COLUMNS.find((c) => known.includes(c)) ?? "correct_answer";
  const answer = (answerColumn ?? suggested).trim();
  const n = props.traces.length;
  const rows = props.traces.map((span) => rowOf(span, answer || "correct_answer"));
  const rowColumns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const unknown = testsetId && known.length ? rowColumns.filter((c) => !known.includes(c)) : [];

  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    if (!answer) return setError("Name the column that holds the expected answer.");
    const commitMessage = message.trim() || `Add ${n} trace${n === 1 ? "" : "s"}`;
    const testcases = rows.map((data) => ({ data }));
    setBusy(true);
    try {
      if (!testsetId) {
        const slug = slugOf(name);
        if (!name.trim() || !slug) throw new Error("Name the new testset (letters or digits).");
        const created = await api<{ testset: { id: string; revision_id: string } }>("POST", "/simple/testsets/", {
          testset: { slug, name: name.trim(), message: commitMessage, data: { testcases } },
        });
        navigate(`/testsets/${created.testset.id}/revisions/${created.testset.revision_id}/rows`);
      } else {
        const committed = await api<{ testset_revision: { id: string } }>("POST", "/testsets/revisions/commit", {
          testset_revision_commit: {
            testset_id: testsetId, message: commitMessage, delta: { rows: { add: testcases } },
          },
          include_testcases: false, include_testcase_ids: false,
        });
        navigate(`/testsets/${testsetId}/revisions/${committed.testset_revision.id}/rows`);
      }
    } catch (e) {
      setError(messageOf(e));
      setBusy(false);
    }
  };

  return (
    <form class="card ob-add" aria-label="Add to testset" onSubmit={submit}>
      <h2>Add {n} trace{n === 1 ? "" : "s"} to a testset</h2>
      <p class="muted">
        Each trace becomes a row: its inputs as the columns, its output as the expected answer.
      </p>
      <div class="ob-add-fields">
        <label class="ev-field">
          Testset
          <select value={testsetId} onChange={(e) => (setTestsetId(e.currentTarget.value), setAnswerColumn(null))}>
            <option value="">New testset…</option>
            {(testsets.data?.items ?? []).map((t) => <option value={t.id}>{t.name || t.slug}</option>)}
          </select>
        </label>
        {!testsetId && (
          <label class="ev-field">
            New testset's name
            <input
              type="text" value={name} placeholder="e.g. Support questions"
              onInput={(e) => setName(e.currentTarget.value)}
            />
          </label>
        )}
        <label class="ev-field">
          Expected answer column
          <input
            type="text" value={answerColumn ?? suggested} onInput={(e) => setAnswerColumn(e.currentTarget.value)}
          />
        </label>
        <label class="ev-field ob-add-message">
          Commit message
          <input
            type="text" value={message} placeholder={`Add ${n} traces`}
            onInput={(e) => setMessage(e.currentTarget.value)}
          />
        </label>
      </div>
      <p class="muted">
        Columns: {rowColumns.map((c) => <code class="badge ob-column">{c}</code>)}
        {unknown.length > 0 && <> · new to this testset: {unknown.join(", ")}</>}
      </p>
      <ErrorBanner message={error ?? testsets.error ?? columns.error} />
      <div class="ev-actions">
        <button type="submit" class="button-primary" disabled={busy}>{busy ? "Committing…" : "Commit rows"}</button>
        <button type="button" class="button-quiet" onClick={props.onCancel} disabled={busy}>Cancel</button>
      </div>
    </form>
  );
}
