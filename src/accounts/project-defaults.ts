import type { Queryable } from "../db/database.ts";
import type { Scope } from "./scope.ts";
import { DEFAULT_ENVIRONMENTS, environments } from "../kinds/environments.ts";
import { createSimple } from "../versioning/simple.ts";


/** What every new project starts with: the development, staging and production environments. */
export async function seedProjectDefaults(tx: Queryable, scope: Scope): Promise<void> {
  for (const slug of DEFAULT_ENVIRONMENTS) {
    await createSimple(tx, scope, environments, { slug, name: slug, data: { references: {} }, message: `Create ${slug}` });
  }
}
