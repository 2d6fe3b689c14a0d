// OpenTelemetry traces, exported to memory: one executeToolBatch is one trace, from the GraphQL
// operation through the submission that writes the jobs (their data carries the trace context), the
// worker's run of each attempt (tool, attempt, outcome) to the publish of the events each wrote.
import { SpanKind } from '@opentelemetry/api';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTracing, type Tracing, tracingEnabled } from '../../src/telemetry/tracing.js';
import { newSession, submitBatch, waitForBatch } from '../support/fixtures.js';
import { startToolrun, type Toolrun } from '../support/toolrun.js';
import { eventually } from '../support/wait.js';

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const idOf = (span: ReadableSpan) => span.spanContext().spanId;
const traceOf = (span: ReadableSpan) => span.spanContext().traceId;

describe('traces', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: Tracing | null;
  let app: Toolrun;
  beforeAll(async () => {
    tracing = await startTracing({ serviceName: 'toolrun-test', spanProcessors: [new SimpleSpanProcessor(exporter)] });
    app = await startToolrun();
  });
  afterAll(async () => {
    await app?.close();
    await tracing?.shutdown();
  });

  it('follows a batch from its GraphQL operation through each call attempt on the worker to the publish of its events', async () => {
    expect(tracingEnabled).toBe(true);
    const session = await newSession(app);
    exporter.reset();
    const batch = await submitBatch(app, {
      sessionId: session.id,
      calls: [
        { id: 'sum', tool: 'add', args: { a: 1, b: 2 } },
        { id: 'flaky', tool: 'failing_tool', args: { retry: 'SAFE', succeedOnAttempt: 2 } },
      ],
    });
    await waitForBatch(app, session.id, batch.batchId);

    const spans = () => exporter.getFinishedSpans();
    const request = spans().find((span) => span.name === 'graphql.mutation ExecuteToolBatch');
    expect(request).toBeDefined();
    expect(request!.kind).toBe(SpanKind.SERVER);
    expect(request!.attributes).toMatchObject({ 'graphql.operation.type': 'mutation', 'graphql.operation.name': 'ExecuteToolBatch' });
    const traceId = traceOf(request!);
    const inTrace = () => spans().filter((span) => traceOf(span) === traceId);

    const submit = inTrace().find((span) => span.name === 'toolrun.batch.submit');
    expect(submit).toBeDefined();
    expect(parentOf(submit!)).toBe(idOf(request!));
    expect(submit!.attributes).toMatchObject({ 'toolrun.batch.id': batch.batchId, 'toolrun.batch.calls': 2 });

    // The worker's spans end after the batch's completion is visible: wait for the last of them.
    const callRuns = await eventually(async () => {
      const runs = inTrace().filter((span) => span.name === 'toolrun.call.run');
      return runs.length === 3 ? runs : null;
    });
    const run = (id: string, attempt: number) => callRuns.find((span) => span.attributes['toolrun.call.id'] === id && span.attributes['toolrun.call.attempt'] === attempt)!;
    const sum = run('sum', 1);
    const flakyFirst = run('flaky', 1);
    const flakySecond = run('flaky', 2);
    expect(sum.kind).toBe(SpanKind.CONSUMER);
    expect(sum.attributes).toMatchObject({ 'toolrun.tool': 'add', 'toolrun.call.attempt': 1, 'toolrun.call.outcome': 'SUCCESS' });
    expect(flakyFirst.attributes).toMatchObject({ 'toolrun.tool': 'failing_tool', 'toolrun.call.attempt': 1, 'toolrun.call.outcome': 'requeued' });
    expect(flakySecond.attributes).toMatchObject({ 'toolrun.tool': 'failing_tool', 'toolrun.call.attempt': 2, 'toolrun.call.outcome': 'SUCCESS' });
    // First attempts come from the submission's jobs; the retry from the job the first attempt wrote.
    expect(parentOf(sum)).toBe(idOf(submit!));
    expect(parentOf(flakyFirst)).toBe(idOf(submit!));
    expect(parentOf(flakySecond)).toBe(idOf(flakyFirst));

    // Each attempt's write published its events in a span of that attempt (or linked to it, when
    // its write was committed in a group with another's).
    const publishes = await eventually(async () => {
      const found = inTrace().filter((span) => span.name === 'toolrun.events.publish');
      const served = (attempt: ReadableSpan) =>
        found.some((span) => parentOf(span) === idOf(attempt) || span.links.some((link) => link.context.spanId === idOf(attempt)));
      return served(sum) && served(flakyFirst) && served(flakySecond) ? found : null;
    });
    expect(publishes.every((span) => span.kind === SpanKind.PRODUCER)).toBe(true);
    const types = new Set(publishes.flatMap((span) => span.attributes['toolrun.events.types'] as string[]));
    expect([...types]).toEqual(expect.arrayContaining(['ToolCallCompleted', 'ToolCallRetrying', 'ToolBatchCompleted']));
  });

  it('records nothing once tracing is off', async () => {
    await tracing?.shutdown();
    tracing = null;
    expect(tracingEnabled).toBe(false);
    exporter.reset();
    const session = await newSession(app);
    const batch = await submitBatch(app, { sessionId: session.id, calls: [{ id: 'sum', tool: 'add', args: { a: 1, b: 2 } }] });
    await waitForBatch(app, session.id, batch.batchId);
    expect(exporter.getFinishedSpans()).toEqual([]);
  });
});
