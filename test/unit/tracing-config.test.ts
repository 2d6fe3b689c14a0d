// When the OTEL_* variables turn traces on, and which settings are refused in one line.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { startTracing, tracingEnabled, tracingRequested } from '../../src/telemetry/tracing.js';

describe('tracing configuration', () => {
  it('is off unless an OTLP endpoint or an exporter other than none is set, and the SDK is not disabled', () => {
    expect(tracingRequested({})).toBe(false);
    expect(tracingRequested({ OTEL_SERVICE_NAME: 'x' })).toBe(false);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(true);
    expect(tracingRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'otlp' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'console' })).toBe(true);
    expect(tracingRequested({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
    expect(tracingRequested({ OTEL_SDK_DISABLED: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe(false);
  });

  it('starts nothing when not configured', async () => {
    expect(await startTracing({ serviceName: 'toolrun', env: {} })).toBeNull();
    expect(tracingEnabled).toBe(false);
  });

  it('refuses an exporter or OTLP protocol it does not have, naming the variable', async () => {
    await expect(startTracing({ serviceName: 'toolrun', env: { OTEL_TRACES_EXPORTER: 'zipkin' } })).rejects.toThrow(ConfigError);
    await expect(startTracing({ serviceName: 'toolrun', env: { OTEL_TRACES_EXPORTER: 'zipkin' } })).rejects.toThrow(/OTEL_TRACES_EXPORTER/);
    await expect(startTracing({ serviceName: 'toolrun', env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' } })).rejects.toThrow(
      /OTEL_EXPORTER_OTLP_PROTOCOL/,
    );
    expect(tracingEnabled).toBe(false);
  });

  it('refuses an OTLP endpoint that is no http(s) URL, naming the variable', async () => {
    for (const env of [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' }, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'not a url' }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'ftp://c/x' }]) {
      const started = startTracing({ serviceName: 'toolrun', env });
      await expect(started).rejects.toThrow(ConfigError);
      await expect(started).rejects.toThrow(new RegExp(Object.keys(env)[0]!));
    }
    expect(tracingEnabled).toBe(false);
  });
});
