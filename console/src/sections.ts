/** The header's tabs, in order: `id` is what a route names as its `section`. */
export const SECTIONS: { id: string; title: string; href: string }[] = [
  { id: "registry", title: "Registry", href: "/registry" },
  { id: "environments", title: "Environments", href: "/environments" },
  { id: "playground", title: "Playground", href: "/playground" },
  { id: "evaluations", title: "Evaluations", href: "/evaluations" },
  { id: "traces", title: "Traces", href: "/traces" },
  { id: "annotations", title: "Annotations", href: "/annotations" },
  { id: "settings", title: "Settings", href: "/settings" },
];
