import { useState } from "preact/hooks";
import { api, useApi } from "../api.ts";
import { queryArtifacts } from "../artifacts.ts";
import { ErrorBanner } from "../components/error-banner.tsx";

interface Testcase {
  id: string;
  data: Record<string, unknown> | null;
}

const preview = (data: Record<string, unknown> | null) => {
  // The server's own bookkeeping (testcase_dedup_id) is no input.
  const text = Object.entries(data ?? {}).filter(([k]) => !k.startsWith("testcase_")).map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join(" · ");
  return text.length > 90 ? `${text.slice(0, 89)}…` : text;
};

/** Picks a testset and one of its rows (the first 100, through `/testcases/query`) and hands the row's data over. */
export function TestcasePicker(props: { onPick: (data: Record<string, unknown>) => void }) {
  const [testset, setTestset] = useState("");
  const [row, setRow] = useState("");
  const testsets = useApi((signal) => queryArtifacts("testsets", { limit: 200 }, signal), []);
  const rows = useApi(async (signal): Promise<Testcase[]> => {
    if (!testset) return [];
    const answer = await api("POST", "/testcases/query", { testset_ref: { id: testset }, windowing: { limit: 100 } }, { signal });
    return answer.testcases ?? [];
  }, [testset]);
  if (testsets.data && testsets.data.items.length === 0) return null;
  const use = () => {
    const picked = rows.data?.find((t) => t.id === row);
    if (picked) props.onPick(picked.data ?? {});
  };
  return (
    <fieldset class="pg-testcase">
      <legend>Inputs from a testset row</legend>
      <ErrorBanner message={testsets.error ?? rows.error} />
      <div class="pg-testcase-row">
        <label class="visually-hidden" for="pg-testset">Testset</label>
        <select id="pg-testset" value={testset} onChange={(e) => { setTestset((e.target as HTMLSelectElement).value); setRow(""); }}>
          <option value="">Testset…</option>
          {testsets.data?.items.map((t) => <option value={t.id}>{t.name || t.slug}</option>)}
        </select>
        <label class="visually-hidden" for="pg-row">Row</label>
        <select id="pg-row" value={row} disabled={!testset || !rows.data?.length} onChange={(e) => setRow((e.target as HTMLSelectElement).value)}>
          <option value="">Row…</option>
          {rows.data?.map((t, i) => <option value={t.id}>{i + 1}. {preview(t.data)}</option>)}
        </select>
        <button type="button" onClick={use} disabled={!row}>Use row</button>
      </div>
    </fieldset>
  );
}
