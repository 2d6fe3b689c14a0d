// Synthetic weather: every number is derived from a hash of the location (and the day index), so
// the same input always gives the same output. No real weather service is called.
import { createHash } from 'node:crypto';
import { defineBuiltinTool } from '../types.js';

const CONDITIONS = ['sunny', 'partly cloudy', 'cloudy', 'overcast', 'light rain', 'rain', 'thunderstorms', 'snow', 'fog', 'windy'] as const;

type Units = 'celsius' | 'fahrenheit';

/** Deterministic numbers in [0, 1) from a seed string. */
function randoms(seed: string, count: number): number[] {
  const digest = createHash('sha256').update(seed).digest();
  const values: number[] = [];
  for (let i = 0; i < count; i++) values.push(digest.readUInt32BE((i * 4) % 28) / 0x1_0000_0000);
  return values;
}

function normalizeLocation(location: string): string {
  return location.trim().replace(/\s+/g, ' ').toLowerCase();
}

function temperature(celsius: number, units: Units): number {
  const value = units === 'fahrenheit' ? (celsius * 9) / 5 + 32 : celsius;
  return Math.round(value * 10) / 10;
}

function dayWeather(location: string, day: number, units: Units) {
  const [t, spread, condition, humidity, wind, precipitation] = randoms(`${normalizeLocation(location)}#${day}`, 6) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const baseline = randoms(normalizeLocation(location), 1)[0]! * 35 - 5; // the location's climate, -5..30 °C
  const mean = baseline + (t - 0.5) * 8;
  const halfSpread = 2 + spread * 6;
  const conditions = CONDITIONS[Math.floor(condition * CONDITIONS.length)]!;
  const wet = ['light rain', 'rain', 'thunderstorms', 'snow'].includes(conditions);
  return {
    conditions,
    temperature: temperature(mean, units),
    high: temperature(mean + halfSpread, units),
    low: temperature(mean - halfSpread, units),
    humidityPercent: Math.round(25 + humidity * 70),
    windKph: Math.round(wind * 45 * 10) / 10,
    precipitationChancePercent: wet ? Math.round(50 + precipitation * 50) : Math.round(precipitation * 30),
  };
}

const unitsSchema = { type: 'string', enum: ['celsius', 'fahrenheit'], default: 'celsius', description: 'Temperature units (default celsius)' };
const locationSchema = { type: 'string', minLength: 1, maxLength: 200, description: 'City or place name' };
/** What both tools share: read-only, repeatable, fast. */
const weatherTool = { hints: { readonly: true, idempotent: true }, timeoutMs: 5000 };

function placeAndUnits(args: Record<string, unknown>): { location: string; units: Units } {
  return { location: String(args.location), units: args.units === 'fahrenheit' ? 'fahrenheit' : 'celsius' };
}

export const getWeather = defineBuiltinTool({
  name: 'get_weather',
  description: 'Current weather for a location. Synthetic test data: deterministic per location, not real weather.',
  parametersSchema: {
    type: 'object',
    properties: { location: locationSchema, units: unitsSchema },
    required: ['location'],
    additionalProperties: false,
  },
  ...weatherTool,
  async execute(args) {
    const { location, units } = placeAndUnits(args);
    const { high: _high, low: _low, ...current } = dayWeather(location, 0, units);
    return { location, units, synthetic: true, ...current };
  },
});

export const getForecast = defineBuiltinTool({
  name: 'get_forecast',
  description: 'Daily forecast for 1 to 14 days (day 1 is today). Synthetic test data: deterministic per location and day, not real weather.',
  parametersSchema: {
    type: 'object',
    properties: {
      location: locationSchema,
      days: { type: 'integer', minimum: 1, maximum: 14, description: 'Number of days (1..14)' },
      units: unitsSchema,
    },
    required: ['location', 'days'],
    additionalProperties: false,
  },
  ...weatherTool,
  async execute(args) {
    const { location, units } = placeAndUnits(args);
    const days = Math.min(14, Math.max(1, Math.floor(Number(args.days))));
    const forecast = Array.from({ length: days }, (_, index) => {
      const { temperature: _mean, ...day } = dayWeather(location, index, units);
      return { day: index + 1, ...day };
    });
    return { location, units, synthetic: true, days, forecast };
  },
});

export const weatherTools = [getWeather, getForecast];
