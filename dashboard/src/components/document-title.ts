// The document's title names the page shown (a tab, the history, a screen reader announcing the page):
// "Approvals · toolrun", a session by its title.
import { useEffect } from 'react';

/** Sets the title to `name` (null: a view inside sets it). */
export function useDocumentTitle(name: string | null): void {
  useEffect(() => {
    if (name !== null) document.title = `${name} · toolrun`;
  }, [name]);
}
