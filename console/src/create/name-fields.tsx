import { slugOf } from "./slug.ts";

/** A new artifact's name and slug: the slug follows the name until it is edited by hand. */
export interface Naming {
  name: string;
  slug: string;
  /** The slug was typed, not derived. */
  typed: boolean;
}

export const emptyNaming: Naming = { name: "", slug: "", typed: false };

/** What is wrong with a naming before it is sent, or null. */
export function namingError(n: Naming): string | null {
  if (!n.name.trim()) return "Give it a name.";
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(n.slug)) {
    return "The slug takes letters, digits, dots, dashes and underscores (at most 64).";
  }
  return null;
}

/** The name and slug inputs. */
export function NameFields(props: { naming: Naming; onChange: (n: Naming) => void; what: string }) {
  const { naming } = props;
  return (
    <div class="create-names">
      <div class="field">
        <label for="create-name">Name</label>
        <input id="create-name" value={naming.name} placeholder={`My ${props.what}`}
          onInput={(e) => {
            const name = e.currentTarget.value;
            props.onChange({ ...naming, name, slug: naming.typed ? naming.slug : slugOf(name) });
          }} />
      </div>
      <div class="field">
        <label for="create-slug">Slug</label>
        <input id="create-slug" value={naming.slug} spellcheck={false}
          onInput={(e) => props.onChange({ ...naming, slug: e.currentTarget.value, typed: true })} />
        <p class="muted field-hint">How clients and the command line name it; it cannot be changed later.</p>
      </div>
    </div>
  );
}
