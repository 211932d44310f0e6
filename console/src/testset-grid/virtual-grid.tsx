/**
 * The rows of a revision in a scroll box that renders only what is in view (plus a few rows either
 * side). Rows have a fixed height; the box's inner height is rows × height, so the scrollbar is true
 * to the row count. Past what a browser lays out in one element (about 15 million pixels), the inner
 * height is capped and scroll positions are scaled to rows, so a million rows scroll the same way.
 */
import { useEffect, useLayoutEffect, useRef, useState } from "preact/hooks";
import { cellText } from "./edits.ts";

const COUNT = new Intl.NumberFormat("en");
/** A row number or count with thousands separators, from one shared formatter (each row shows one). */
export const formatCount = (n: number) => COUNT.format(n);

export const ROW_HEIGHT = 34;
const MAX_HEIGHT = 15_000_000;
const OVERSCAN = 8;

export interface GridRow {
  /** The testcase id (undefined for a row added in the grid, or one still loading). */
  id?: string;
  data?: Record<string, unknown>;
  state: "loading" | "stored" | "edited" | "removed" | "added";
}

export interface VirtualGridProps {
  total: number;
  columns: string[];
  rowAt: (index: number) => GridRow;
  /** The rows in view changed: [first, last] with overscan. */
  onRange: (first: number, last: number) => void;
  onEdit: (index: number, column: string, text: string) => void;
  onRemove: (index: number) => void;
  onRestore: (index: number) => void;
  /** A row (0-based) to bring into view and mark, and a counter that repeats the jump. */
  jump: { index: number; round: number } | null;
  label: string;
}

export function VirtualGrid(props: VirtualGridProps) {
  const box = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewHeight, setViewHeight] = useState(480);
  const frame = useRef(0);
  const fullHeight = props.total * ROW_HEIGHT;
  const height = Math.min(fullHeight, MAX_HEIGHT);
  const header = ROW_HEIGHT;
  const area = Math.max(viewHeight - header, ROW_HEIGHT);
  // Scroll position → pixel offset into the full list (1 when nothing is scaled).
  const ratio = height > area ? Math.max(fullHeight - area, 0) / (height - area) : 1;
  const offset = Math.min(scrollTop, Math.max(height - area, 0)) * ratio;
  // A fixed number of rendered rows, keyed by index modulo that number: a row scrolled out at one end is
  // the element reused for the row scrolled in at the other, so scrolling updates cells rather than
  // building rows.
  const pool = Math.ceil(area / ROW_HEIGHT) + 2 * OVERSCAN + 2;
  const first = Math.max(Math.min(Math.floor(offset / ROW_HEIGHT) - OVERSCAN, props.total - pool), 0);
  const last = Math.min(first + pool - 1, props.total - 1);

  useEffect(() => {
    if (props.total > 0) props.onRange(first, last);
  }, [first, last, props.total]);

  useLayoutEffect(() => {
    const el = box.current!;
    const measure = () => setViewHeight(el.clientHeight);
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  useLayoutEffect(() => {
    if (!props.jump || !box.current) return;
    const target = Math.max(props.jump.index * ROW_HEIGHT - area / 3, 0) / ratio;
    box.current.scrollTop = target;
    setScrollTop(box.current.scrollTop);
  }, [props.jump?.round, props.total > 0]);

  const onScroll = () => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(() => box.current && setScrollTop(box.current.scrollTop));
  };

  const template = `5.5rem repeat(${props.columns.length}, minmax(11rem, 1fr)) 6.5rem`;
  const minWidth = `${12 + props.columns.length * 11}rem`;
  const rows = [];
  for (let i = first; i <= last; i++) {
    const row = props.rowAt(i);
    const top = scrollTop + i * ROW_HEIGHT - offset;
    const marked = props.jump?.index === i;
    rows.push(
      <div role="row" aria-rowindex={i + 2} class={`tg-row tg-${row.state}${marked ? " tg-marked" : ""}`} key={i % pool}
        style={{ transform: `translateY(${top}px)`, gridTemplateColumns: template }}>
        <div role="rowheader" class="tg-num">{formatCount(i + 1)}</div>
        {props.columns.map((column) => (
          <div role="gridcell" class="tg-cell" key={column}>
            {row.state === "loading" ? <span class="tg-placeholder" /> : (
              <input type="text" value={cellText(row.data?.[column])} aria-label={`Row ${i + 1} ${column}`}
                disabled={row.state === "removed"} onInput={(e) => props.onEdit(i, column, e.currentTarget.value)} />
            )}
          </div>
        ))}
        <div role="gridcell" class="tg-actions">
          {row.state === "removed"
            ? <button type="button" class="button-small" onClick={() => props.onRestore(i)} aria-label={`Restore row ${i + 1}`}>Restore</button>
            : row.state !== "loading" && (
              <button type="button" class="button-small button-quiet" onClick={() => props.onRemove(i)} aria-label={`Delete row ${i + 1}`}>Delete</button>
            )}
        </div>
      </div>,
    );
  }

  return (
    <div class="tg-box" ref={box} onScroll={onScroll} role="grid" aria-label={props.label}
      aria-rowcount={props.total + 1} aria-colcount={props.columns.length + 2} tabIndex={0}>
      <div role="row" aria-rowindex={1} class="tg-row tg-head" style={{ gridTemplateColumns: template, minWidth }}>
        <div role="columnheader" class="tg-num">#</div>
        {props.columns.map((column) => <div role="columnheader" class="tg-cell" key={column} title={column}>{column}</div>)}
        <div role="columnheader" class="tg-actions"><span class="visually-hidden">Actions</span></div>
      </div>
      <div class="tg-spacer" style={{ height: `${height}px`, minWidth }}>{rows}</div>
    </div>
  );
}
