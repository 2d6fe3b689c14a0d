// Where the package's own files are (dist/dashboard, dist/scripts, prisma/) wherever the running
// code sits: src/ under tsx, dist/src/ compiled per file, or a bundle's chunk in dist/src/bin/chunks/.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder above this module with a package.json. */
function findPackageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

export const PACKAGE_ROOT = findPackageRoot();
