import type { Kind, TesseraClient } from "../../packages/client/src/index.ts";
import { isUuid } from "./client-refs.ts";

export interface Named {
  id: string;
  slug: string;
}

/** What a command names that does not exist: exit code 1, like the server's own 404. */
export class NotFound extends Error {}

const singular = (kind: Kind) => kind.slice(0, -1);
const refFor = (slugOrId: string) => (isUuid(slugOrId) ? { id: slugOrId.toLowerCase() } : { slug: slugOrId });

/** Artifacts and variants by what a user types: a slug or an id. */
export class Lookup {
  readonly #client: TesseraClient;

  constructor(client: TesseraClient) {
    this.#client = client;
  }

  /** The artifact with that slug or id, or null. */
  async artifact(kind: Kind, slugOrId: string): Promise<Named | null> {
    return (await this.#client.findArtifacts(kind, [refFor(slugOrId)], 2))[0] ?? null;
  }

  /** Variants of one artifact, or (without `artifactId`) those with that slug or id anywhere in the kind. */
  async variants(kind: Kind, of: { artifactId?: string; slugOrId?: string }): Promise<Named[]> {
    return this.#client.findVariants(kind, {
      artifacts: of.artifactId ? [{ id: of.artifactId }] : undefined,
      variants: of.slugOrId ? [refFor(of.slugOrId)] : undefined,
    });
  }

  /**
   * A variant of `artifact` by id, slug, or short name: `--variant default` finds `capitals.default`,
   * the slug the simple API gives an artifact's first variant.
   */
  async variantOf(kind: Kind, artifact: Named, name: string): Promise<Named> {
    const all = await this.variants(kind, { artifactId: artifact.id });
    const found = all.find((v) => v.id === name.toLowerCase()) ?? all.find((v) => v.slug === name) ?? all.find((v) => v.slug === `${artifact.slug}.${name}`);
    if (found) return found;
    const known = all.map((v) => v.slug).join(", ") || "none";
    throw new NotFound(`${singular(kind)} "${artifact.slug}" has no variant "${name}" (its variants: ${known})`);
  }
}
