import type { AnchorHTMLAttributes, TargetedMouseEvent } from "preact";
import { navigate } from "../router.ts";

/**
 * An `<a href>` that moves inside the console without reloading; a modified click (new tab, new window)
 * or an outside link is left to the browser.
 */
export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string; replace?: boolean }) {
  const { replace, onClick, ...rest } = props;
  const click = (event: TargetedMouseEvent<HTMLAnchorElement>) => {
    if (typeof onClick === "function") onClick(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    if (!props.href.startsWith("/") || props.target) return;
    event.preventDefault();
    navigate(props.href, { replace });
  };
  return <a {...rest} onClick={click} />;
}
