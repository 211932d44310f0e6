import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { api, useApi } from "./api.ts";
import { Link } from "./components/link.tsx";
import { SECTIONS } from "./sections.ts";
import { signOut } from "./session.ts";
import { applyTheme, nextTheme, storedTheme } from "./theme.ts";

/** The page frame: skip link, header (brand, sections, project, theme, sign out) and the main area. */
export function Layout(props: { section?: string; children: ComponentChildren }) {
  const project = useApi((signal) => api<{ project_name?: string | null }>("GET", "/projects/current", undefined, { signal }), []);
  const [theme, setTheme] = useState(storedTheme);
  const toggleTheme = () => {
    const next = nextTheme(theme);
    applyTheme(next);
    setTheme(next);
  };
  return (
    <>
      <a class="skip-link" href="#main">Skip to content</a>
      <header class="site-header">
        <Link href="/" class="brand">Tessera</Link>
        <nav aria-label="Sections" class="sections">
          {SECTIONS.map((s) => (
            <Link href={s.href} aria-current={props.section === s.id ? "page" : undefined}>{s.title}</Link>
          ))}
        </nav>
        <div class="header-tools">
          {project.data?.project_name && <span class="project" title="Project">{project.data.project_name}</span>}
          <button type="button" class="button-quiet" onClick={toggleTheme} aria-label={`Theme: ${theme}. Change theme`}>
            {theme === "system" ? "Auto" : theme === "light" ? "Light" : "Dark"}
          </button>
          <button type="button" class="button-quiet" onClick={() => signOut()}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>{props.children}</main>
    </>
  );
}
