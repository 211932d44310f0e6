import type { ArtifactKind } from "../api.ts";
import { Link } from "../components/link.tsx";
import { promptOf } from "../prompt.ts";
import type { Revision } from "../revisions.ts";
import { gridHref } from "./testset-grid.tsx";

/** A revision's content: a prompt's messages and model settings, any other data as JSON; a testset's rows link. */
export function RevisionContent(props: { kind: ArtifactKind; artifactId: string; revision: Revision }) {
  const { kind, revision } = props;
  if (kind === "testsets") {
    return <p><Link href={gridHref(props.artifactId, revision.id)}>Rows of this revision</Link></p>;
  }
  const data = revision.data ?? {};
  const prompt = promptOf(data);
  const json = <pre class="code-block revision-json">{JSON.stringify(data, null, 2)}</pre>;
  if (!prompt) return <div class="revision-content"><h4>Data</h4>{json}</div>;
  const llm: Record<string, unknown> = prompt.llm_config ?? {};
  return (
    <div class="revision-content">
      <h4>Prompt</h4>
      <ol class="revision-messages" aria-label="Prompt messages">
        {prompt.messages.map((m: { role: string; content: string | null }) => (
          <li><span class="badge">{m.role}</span><pre>{m.content ?? ""}</pre></li>
        ))}
      </ol>
      <dl class="facts" aria-label="Model settings">
        {Object.entries(llm).map(([name, value]) => (
          <><dt>{name}</dt><dd><code>{typeof value === "string" ? value : JSON.stringify(value)}</code></dd></>
        ))}
      </dl>
      <details><summary>Data as JSON</summary>{json}</details>
    </div>
  );
}
