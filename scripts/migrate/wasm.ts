// Loads Prisma's WebAssembly schema engine (@prisma/schema-engine-wasm) in plain Node.
//
// The package's own entry point does `import * as wasm from "./schema_engine_bg.wasm"`, which
// Node cannot import. So we instantiate the .wasm file by hand, using the package's JS glue
// (schema_engine_bg.js) as the import object, exactly as that entry point would do.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import * as glue from '@prisma/schema-engine-wasm/schema_engine_bg';

export type { SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';
export type * from '@prisma/schema-engine-wasm/schema_engine_bg';

interface EngineExports {
  __wbindgen_start(): void;
}

/**
 * The glue module as an import object, except that the engine's timers are unref'd: it never
 * clears them (the glue has no clearTimeout), and a pending 10 s lock timeout would otherwise
 * keep the process alive long after the work is done. The CLI still ends with process.exit.
 */
function importsWithUnrefTimers(): WebAssembly.ModuleImports {
  const imports: Record<string, unknown> = { ...glue };
  for (const [name, fn] of Object.entries(glue)) {
    if (name.startsWith('__wbg_setTimeout_') && typeof fn === 'function') {
      imports[name] = (...args: unknown[]): unknown => {
        const timer: unknown = (fn as (...a: unknown[]) => unknown)(...args);
        (timer as { unref?: () => void } | null)?.unref?.();
        return timer;
      };
    }
  }
  return imports as WebAssembly.ModuleImports;
}

/** Where the engine's panic hook leaves the panic message (the glue calls `global.PRISMA_WASM_PANIC_REGISTRY.set_message`). */
export interface PanicRegistry {
  message?: string;
  set_message(message: string): void;
}

function installPanicRegistry(): void {
  const g = globalThis as { PRISMA_WASM_PANIC_REGISTRY?: PanicRegistry };
  g.PRISMA_WASM_PANIC_REGISTRY ??= {
    set_message(message: string) {
      this.message = message;
    },
  };
}

let loaded: Promise<typeof glue> | undefined;

/** The engine's JS module, with its WebAssembly instance attached (once per process). */
export function loadSchemaEngineWasm(): Promise<typeof glue> {
  loaded ??= (async () => {
    installPanicRegistry();
    const gluePath = createRequire(import.meta.url).resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const bytes = await readFile(join(dirname(gluePath), 'schema_engine_bg.wasm'));
    // The .wasm module imports everything from "./schema_engine_bg.js", i.e. the glue module.
    const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': importsWithUnrefTimers() });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports as unknown as EngineExports).__wbindgen_start();
    return glue;
  })();
  return loaded;
}
