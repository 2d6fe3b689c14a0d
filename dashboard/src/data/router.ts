// A few routes need no router library: the path is the state, links push history entries.
import { useSyncExternalStore } from 'react';

const listeners = new Set<() => void>();
window.addEventListener('popstate', () => listeners.forEach((listener) => listener()));

export function navigate(path: string): void {
  if (path === location.pathname + location.search) return;
  history.pushState(null, '', path);
  listeners.forEach((listener) => listener());
}

export function useLocation(): { path: string; params: URLSearchParams } {
  const href = useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => location.pathname + location.search,
  );
  const url = new URL(href, location.origin);
  return { path: url.pathname, params: url.searchParams };
}

/** What of a click `linkTo` looks at (a React mouse event). */
interface LinkClick {
  button: number;
  metaKey: boolean;
  ctrlKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
  defaultPrevented: boolean;
  preventDefault(): void;
}

/**
 * The click handler of a link to `path` (whose `href` is `path` too): a plain click moves this page
 * there in place; a click that asks the browser for something else (Ctrl or ⌘: a new tab, Shift: a
 * new window, Alt: a download, a button other than the first) is left to the browser.
 */
export function linkTo(path: string): (event: LinkClick) => void {
  return (event) => {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(path);
  };
}
