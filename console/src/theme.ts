/**
 * Light, dark, or the system's choice (the default): stored in localStorage, applied as
 * `<html data-theme="light|dark">` (styles.css follows prefers-color-scheme when the attribute is absent).
 */
export type Theme = "system" | "light" | "dark";

const STORAGE = "tessera.theme";

export function storedTheme(): Theme {
  const value = localStorage.getItem(STORAGE);
  return value === "light" || value === "dark" ? value : "system";
}

export function applyTheme(theme: Theme): void {
  if (theme === "system") {
    localStorage.removeItem(STORAGE);
    delete document.documentElement.dataset.theme;
  } else {
    localStorage.setItem(STORAGE, theme);
    document.documentElement.dataset.theme = theme;
  }
}

/** system → light → dark → system. */
export const nextTheme = (theme: Theme): Theme => (theme === "system" ? "light" : theme === "light" ? "dark" : "system");
