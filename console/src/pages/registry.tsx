import { useEffect, useState } from "preact/hooks";
import type { ArtifactKind } from "../api.ts";
import { isArtifactKind, KIND_TITLES } from "../artifacts.ts";
import { Link } from "../components/link.tsx";
import { hrefOf, setQuery, type ViewProps } from "../router.ts";
import { ArtifactList } from "./artifact-list.tsx";

const KINDS: ArtifactKind[] = ["applications", "workflows", "evaluators", "testsets"];

/** `/registry?kind=applications&q=…&archived=1`: one tab per kind, a search box and an archived toggle, all in the URL. */
export function RegistryPage({ query }: ViewProps) {
  const given = query.get("kind");
  const kind: ArtifactKind = isArtifactKind(given) && KINDS.includes(given) ? given : "applications";
  const search = query.get("q") ?? "";
  const archived = query.get("archived") === "1";
  return (
    <>
      <h1>Registry</h1>
      <nav aria-label="Kinds" class="tabs">
        {KINDS.map((k) => (
          <Link href={hrefOf("/registry", { kind: k, q: search, archived })} aria-current={k === kind ? "page" : undefined}>
            {KIND_TITLES[k].many}
          </Link>
        ))}
      </nav>
      <div class="registry-bar">
        <ListControls kind={kind} search={search} archived={archived} />
        <Link class="button-link button-primary" href={`/${kind}/new`}>New {KIND_TITLES[kind].one.toLowerCase()}</Link>
      </div>
      <ArtifactList kind={kind} search={search} archived={archived} />
    </>
  );
}

/** The search box (the URL follows as one types, without a history entry per key) and the archived toggle. */
export function ListControls(props: { kind: ArtifactKind; search: string; archived: boolean }) {
  const [text, setText] = useState(props.search);
  useEffect(() => setText(props.search), [props.search]); // back/forward
  useEffect(() => {
    if (text.trim() === props.search) return;
    const timer = setTimeout(() => setQuery({ q: text.trim() }), 250);
    return () => clearTimeout(timer);
  }, [text]);
  const many = KIND_TITLES[props.kind].many.toLowerCase();
  return (
    <form class="controls" role="search" onSubmit={(e) => { e.preventDefault(); setQuery({ q: text.trim() }); }}>
      <label class="visually-hidden" for="search">Search {many}</label>
      <input id="search" type="search" placeholder={`Search ${many} by name or slug`} value={text}
        onInput={(e) => setText(e.currentTarget.value)} />
      <label class="checkbox">
        <input type="checkbox" checked={props.archived} onChange={(e) => setQuery({ archived: e.currentTarget.checked ? "1" : null })} />
        Show archived
      </label>
    </form>
  );
}
