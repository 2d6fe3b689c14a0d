// OpenTelemetry traces, off unless the standard OTEL_* variables configure them. Without them no SDK
// starts and `tracingEnabled` stays false: the code on the hot paths tests that flag before any
// tracing work, so the cost is one boolean test. With them, one trace follows a call from its GraphQL
// operation (server/plugins/use-tracing.ts) through the submission that writes its jobs (their data
// carries the W3C trace context: `TraceCarrier`), the worker's run of each attempt, and the publish
// of the events written meanwhile (domain/event-log.ts).
import { type Attributes, type Context, context, type Link, propagation, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { SpanExporter, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ConfigError } from '../config.js';

/** True while a tracer provider of ours is registered. */
export let tracingEnabled = false;

/** The W3C trace context of the work that wrote a job, carried in the job's data. */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}

export interface Tracing {
  /** Ends the remaining spans, exports them, and turns tracing off. */
  shutdown(): Promise<void>;
}

const TRACER = 'toolrun';

/** Whether the environment asks for traces: an OTLP endpoint or an exporter other than `none`, unless the SDK is disabled. */
export function tracingRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim();
  if (exporter) return exporter.toLowerCase() !== 'none';
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** The exporter OTEL_TRACES_EXPORTER names (`otlp`, the default, over HTTP/JSON; `console`). */
async function exporterFrom(env: NodeJS.ProcessEnv): Promise<SpanExporter> {
  const names = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
  if (names.length !== 1 || (names[0] !== 'otlp' && names[0] !== 'console')) {
    throw new ConfigError(`OTEL_TRACES_EXPORTER must be otlp, console or none (got "${env.OTEL_TRACES_EXPORTER}")`);
  }
  if (names[0] === 'console') return new (await import('@opentelemetry/sdk-trace-base')).ConsoleSpanExporter();
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (protocol && protocol !== 'http/json') {
    throw new ConfigError(`OTEL_EXPORTER_OTLP_PROTOCOL: toolrun exports traces over http/json only (got "${protocol}")`);
  }
  // The endpoint as the specification derives it (the exporter reads _HEADERS, _TIMEOUT and the like itself).
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const endpoint = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  for (const [name, value] of [['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', tracesEndpoint], ['OTEL_EXPORTER_OTLP_ENDPOINT', endpoint]] as const) {
    if (value && !(URL.canParse(value) && /^https?:$/.test(new URL(value).protocol))) throw new ConfigError(`${name} must be an http:// or https:// URL, e.g. http://localhost:4318 (got "${value}")`);
  }
  const url = tracesEndpoint || (endpoint ? `${endpoint.replace(/\/+$/, '')}/v1/traces` : undefined);
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  return new OTLPTraceExporter(url ? { url } : {});
}

/**
 * Starts tracing when the environment asks for it (or `spanProcessors` are given, as tests do):
 * registers a tracer provider, the AsyncLocalStorage context manager and the W3C propagator.
 * Returns null, starting nothing, when tracing is not configured. The SDK is loaded only then: a
 * process that does not trace does not pay its start-up.
 */
export async function startTracing(options: {
  serviceName: string;
  /** Decides whether to trace and where to (process.env by default); the SDK reads the other OTEL_* variables from process.env. */
  env?: NodeJS.ProcessEnv;
  spanProcessors?: SpanProcessor[];
}): Promise<Tracing | null> {
  const env = options.env ?? process.env;
  let spanProcessors = options.spanProcessors;
  if (!spanProcessors) {
    if (!tracingRequested(env)) return null;
    const exporter = await exporterFrom(env);
    spanProcessors = [new (await import('@opentelemetry/sdk-trace-base')).BatchSpanProcessor(exporter)];
  }
  const [{ defaultResource, detectResources, envDetector, resourceFromAttributes }, { NodeTracerProvider }] = await Promise.all([
    import('@opentelemetry/resources'),
    import('@opentelemetry/sdk-trace-node'),
  ]);
  // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win over the default name.
  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': options.serviceName }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new NodeTracerProvider({ resource, spanProcessors });
  provider.register();
  tracingEnabled = true;
  return {
    async shutdown() {
      tracingEnabled = false;
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** The active trace context, to carry in a job's data (undefined when tracing is off or nothing is traced). */
export function currentTraceCarrier(): TraceCarrier | undefined {
  if (!tracingEnabled) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : undefined;
}

/** The active context, to parent work that runs later in another async context (undefined when off). */
export function activeTraceContext(): Context | undefined {
  return tracingEnabled ? context.active() : undefined;
}

/** Runs `fn` with `parent` as the active context. */
export function inTraceContext<T>(parent: Context, fn: () => T): T {
  return context.with(parent, fn);
}

/** `fn`, bound to run in the active context wherever it is called from. */
export function bindToActiveTrace<F extends (...args: never[]) => unknown>(fn: F): F {
  return context.bind(context.active(), fn);
}

/**
 * Runs `fn` in a new active span (a child of `parent`: a job's carrier, or the active context),
 * ending it when `fn` settles; a thrown error marks it failed. Call it only when `tracingEnabled`.
 */
export function inSpan<T>(
  name: string,
  options: { kind?: SpanKind; attributes?: Attributes; parent?: TraceCarrier },
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = options.parent ? propagation.extract(ROOT_CONTEXT, options.parent) : context.active();
  return trace.getTracer(TRACER).startActiveSpan(name, { kind: options.kind ?? SpanKind.INTERNAL, attributes: options.attributes }, parent, async (span) => {
    try {
      return await fn(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Sets attributes on the active span, if any (call it only when `tracingEnabled`). */
export function setActiveSpanAttributes(attributes: Attributes): void {
  trace.getActiveSpan()?.setAttributes(attributes);
}

/**
 * A span for work that serves several traced writers at once (a group commit's publish): the child of
 * the first writer's context, linked to the others'. The caller ends it. Call it only when `tracingEnabled`.
 */
export function startSharedSpan(name: string, parents: Array<Context | undefined>, attributes: Attributes): Span {
  const spans = parents.map((parent) => (parent ? trace.getSpanContext(parent) : undefined));
  const first = spans.findIndex((span) => span !== undefined);
  const links: Link[] = [];
  const seen = new Set<string>(first >= 0 ? [spans[first]!.spanId] : []);
  spans.forEach((span) => {
    if (!span || seen.has(span.spanId)) return;
    seen.add(span.spanId);
    links.push({ context: span });
  });
  const parent = first >= 0 ? parents[first]! : ROOT_CONTEXT;
  return trace.getTracer(TRACER).startSpan(name, { kind: SpanKind.PRODUCER, attributes, links }, parent);
}
