import type { ComponentChildren } from "preact";

/** What a list shows when it has nothing: a title, a sentence, and what to do (optional children). */
export function EmptyState(props: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty-state" role="status">
      <p class="empty-title">{props.title}</p>
      {props.children && <div class="empty-body">{props.children}</div>}
    </div>
  );
}
