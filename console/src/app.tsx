import { useEffect, useRef } from "preact/hooks";
import { Link } from "./components/link.tsx";
import { EmptyState } from "./components/empty-state.tsx";
import { Layout } from "./layout.tsx";
import { SignInPage } from "./pages/sign-in.tsx";
import { findRoute, useLocation } from "./router.ts";
import { ROUTES } from "./routes.ts";
import { useApiKey } from "./session.ts";

/** Signed out: the sign-in page (whatever the URL, which is kept). Signed in: the route's view in the layout. */
export function App() {
  const key = useApiKey();
  const location = useLocation();
  const found = key ? findRoute(ROUTES, location.path) : null;
  // After a move to another page, focus goes to its content (as a page load would put it at the top).
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else document.getElementById("main")?.focus({ preventScroll: true });
  }, [location.path]);
  if (!key) return <SignInPage />;
  if (!found) {
    return (
      <Layout>
        <EmptyState title="No such page">
          <p>Nothing lives at <code>{location.path}</code>. <Link href="/">Go to the registry</Link>.</p>
        </EmptyState>
      </Layout>
    );
  }
  const View = found.route.view;
  // Keyed by path: moving between two artifacts starts the view afresh.
  return <Layout section={found.route.section}><View key={location.path} params={found.params} query={location.query} /></Layout>;
}
