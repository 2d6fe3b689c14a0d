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
