import type { Plugin } from '@envelop/core';
import { NoSchemaIntrospectionCustomRule } from 'graphql';

/** Refuses `__schema` and `__type` queries unless introspection is enabled (the INTROSPECTION setting). */
export function useIntrospectionSetting(enabled: boolean): Plugin {
  return enabled ? {} : { onValidate: ({ addValidationRule }) => addValidationRule(NoSchemaIntrospectionCustomRule) };
}
