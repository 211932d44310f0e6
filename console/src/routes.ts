/**
 * Every view of the console and its URL. A page adds itself here (most specific patterns first) and, when
 * it has a header tab, to sections.ts. Views receive `{params, query}` (router.ts). A page most visits never open
 * is loaded with `lazyView(() => import(…))`: its module is a chunk of its own, fetched when first shown.
 */
import { ArtifactPage } from "./pages/artifact.tsx";
import { ArtifactDiffPage } from "./pages/artifact-diff.tsx";
import { CreateEvaluatorPage } from "./pages/create-evaluator.tsx";
import { CreateTestsetPage } from "./pages/create-testset.tsx";
import { CreateWorkflowPage } from "./pages/create-workflow.tsx";
import { EditPage } from "./pages/edit.tsx";
import { EnvironmentsPage } from "./pages/environments.tsx";
import { EvaluationComparePage } from "./pages/evaluation-compare.tsx";
import { EvaluationRunPage } from "./pages/evaluation-run.tsx";
import { EvaluationsPage } from "./pages/evaluations.tsx";
import { lazyView } from "./lazy-view.tsx";
import { PlaygroundPage } from "./pages/playground.tsx";
import { RegistryPage } from "./pages/registry.tsx";
import { SettingsPage } from "./pages/settings.tsx";
import type { Route } from "./router.ts";
import { TestsetGridPage, TestsetLatestRowsPage } from "./pages/testset-grid.tsx";

const TracesPage = lazyView(() => import("./pages/traces/traces-page.tsx").then((m) => m.TracesPage));
const TracePage = lazyView(() => import("./pages/traces/trace-page.tsx").then((m) => m.TracePage));
const AnnotationsPage = lazyView(() => import("./pages/annotations.tsx").then((m) => m.AnnotationsPage));
const AnnotationQueuePage = lazyView(() => import("./pages/annotation-queue.tsx").then((m) => m.AnnotationQueuePage));

export const ROUTES: Route[] = [
  { pattern: "/", view: RegistryPage, section: "registry" },
  { pattern: "/registry", view: RegistryPage, section: "registry" },
  { pattern: "/environments", view: EnvironmentsPage, section: "environments" },
  { pattern: "/applications/:id/diff", view: (p) => ArtifactDiffPage({ ...p, kind: "applications" }), section: "registry" },
  { pattern: "/workflows/:id/diff", view: (p) => ArtifactDiffPage({ ...p, kind: "workflows" }), section: "registry" },
  { pattern: "/evaluators/:id/diff", view: (p) => ArtifactDiffPage({ ...p, kind: "evaluators" }), section: "registry" },
  { pattern: "/testsets/:id/diff", view: (p) => ArtifactDiffPage({ ...p, kind: "testsets" }), section: "registry" },
  { pattern: "/environments/:id/diff", view: (p) => ArtifactDiffPage({ ...p, kind: "environments" }), section: "environments" },
  { pattern: "/playground", view: PlaygroundPage, section: "playground" },
  {
    pattern: "/applications/new", view: (p) => CreateWorkflowPage({ ...p, kind: "applications" }), section: "registry",
  },
  { pattern: "/workflows/new", view: (p) => CreateWorkflowPage({ ...p, kind: "workflows" }), section: "registry" },
  { pattern: "/evaluators/new", view: CreateEvaluatorPage, section: "registry" },
  { pattern: "/testsets/new", view: CreateTestsetPage, section: "registry" },
  { pattern: "/applications/:id/variants/:variantId/edit", view: (p) => EditPage({ ...p, kind: "applications" }), section: "registry" },
  { pattern: "/workflows/:id/variants/:variantId/edit", view: (p) => EditPage({ ...p, kind: "workflows" }), section: "registry" },
  { pattern: "/evaluators/:id/variants/:variantId/edit", view: (p) => EditPage({ ...p, kind: "evaluators" }), section: "registry" },
  { pattern: "/applications/:id", view: (p) => ArtifactPage({ ...p, kind: "applications" }), section: "registry" },
  { pattern: "/workflows/:id", view: (p) => ArtifactPage({ ...p, kind: "workflows" }), section: "registry" },
  { pattern: "/evaluators/:id", view: (p) => ArtifactPage({ ...p, kind: "evaluators" }), section: "registry" },
  { pattern: "/testsets/:id/revisions/:revisionId/rows", view: TestsetGridPage, section: "registry" },
  { pattern: "/testsets/:id/rows", view: TestsetLatestRowsPage, section: "registry" },
  { pattern: "/testsets/:id", view: (p) => ArtifactPage({ ...p, kind: "testsets" }), section: "registry" },
  { pattern: "/environments/:id", view: (p) => ArtifactPage({ ...p, kind: "environments" }), section: "environments" },
  { pattern: "/settings", view: SettingsPage, section: "settings" },
  { pattern: "/evaluations", view: EvaluationsPage, section: "evaluations" },
  { pattern: "/evaluations/compare", view: EvaluationComparePage, section: "evaluations" },
  { pattern: "/evaluations/:id", view: EvaluationRunPage, section: "evaluations" },
  { pattern: "/traces", view: TracesPage, section: "traces" },
  { pattern: "/traces/:id", view: TracePage, section: "traces" },
  { pattern: "/annotations", view: AnnotationsPage, section: "annotations" },
  { pattern: "/annotations/:id", view: AnnotationQueuePage, section: "annotations" },
];
