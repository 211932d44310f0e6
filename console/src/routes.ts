/**
 * Every view of the console and its URL. A page adds itself here (most specific patterns first) and, when
 * it has a header tab, to sections.ts. Views receive `{params, query}` (router.ts).
 */
import { ArtifactPage } from "./pages/artifact.tsx";
import { EnvironmentsPage } from "./pages/environments.tsx";
import { EvaluationComparePage } from "./pages/evaluation-compare.tsx";
import { EvaluationRunPage } from "./pages/evaluation-run.tsx";
import { EvaluationsPage } from "./pages/evaluations.tsx";
import { RegistryPage } from "./pages/registry.tsx";
import type { Route } from "./router.ts";

export const ROUTES: Route[] = [
  { pattern: "/", view: RegistryPage, section: "registry" },
  { pattern: "/registry", view: RegistryPage, section: "registry" },
  { pattern: "/environments", view: EnvironmentsPage, section: "environments" },
  { pattern: "/applications/:id", view: (p) => ArtifactPage({ ...p, kind: "applications" }), section: "registry" },
  { pattern: "/workflows/:id", view: (p) => ArtifactPage({ ...p, kind: "workflows" }), section: "registry" },
  { pattern: "/evaluators/:id", view: (p) => ArtifactPage({ ...p, kind: "evaluators" }), section: "registry" },
  { pattern: "/testsets/:id", view: (p) => ArtifactPage({ ...p, kind: "testsets" }), section: "registry" },
  { pattern: "/environments/:id", view: (p) => ArtifactPage({ ...p, kind: "environments" }), section: "environments" },
  { pattern: "/evaluations", view: EvaluationsPage, section: "evaluations" },
  { pattern: "/evaluations/compare", view: EvaluationComparePage, section: "evaluations" },
  { pattern: "/evaluations/:id", view: EvaluationRunPage, section: "evaluations" },
];
