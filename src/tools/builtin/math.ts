import { ToolFailureError } from '../../model/outcome.js';
import { float } from '../../model/tool-value.js';
import { type BuiltinTool, defineBuiltinTool } from '../types.js';

const operandsSchema = {
  type: 'object',
  properties: {
    a: { type: 'number', description: 'First operand' },
    b: { type: 'number', description: 'Second operand' },
  },
  required: ['a', 'b'],
  additionalProperties: false,
};

function arithmetic(name: string, description: string, operate: (a: number, b: number) => number): BuiltinTool {
  return defineBuiltinTool({
    name,
    description,
    parametersSchema: operandsSchema,
    hints: { readonly: true, idempotent: true },
    timeoutMs: 5000,
    async execute(args) {
      const a = args.a as number;
      const b = args.b as number;
      const result = operate(a, b);
      if (!Number.isFinite(result)) {
        throw new ToolFailureError({ class: 'EXECUTION', code: 'numeric_overflow', message: `${name}(${a}, ${b}) is not a finite number` });
      }
      // The seed's arithmetic works in f64: 5 + 3 is 8.0 to the model.
      return { result: float(result) };
    },
  });
}

export const add = arithmetic('add', 'Adds two numbers: returns {result: a + b}.', (a, b) => a + b);
export const subtract = arithmetic('subtract', 'Subtracts two numbers: returns {result: a - b}.', (a, b) => a - b);
export const multiply = arithmetic('multiply', 'Multiplies two numbers: returns {result: a * b}.', (a, b) => a * b);
export const divide = arithmetic('divide', 'Divides two numbers: returns {result: a / b}; dividing by zero fails.', (a, b) => {
  if (b === 0) throw new ToolFailureError({ class: 'EXECUTION', code: 'division_by_zero', message: `Cannot divide ${a} by zero` });
  return a / b;
});

export const mathTools = [add, subtract, multiply, divide];
