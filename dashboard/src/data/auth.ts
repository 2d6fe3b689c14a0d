// The API key lives in sessionStorage only: never in the URL, gone when the tab closes.
const KEY = 'toolrun.apiKey';

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY);
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY);
}
