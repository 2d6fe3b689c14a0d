// The signed-in key and its roles, for every view to enable or disable what needs a role.
import { createContext, useContext } from 'react';
import type { Role } from '../gql/graphql.js';

export interface ViewerInfo {
  roles: Role[];
  tenantName: string;
}

export const ViewerContext = createContext<ViewerInfo>({ roles: ['READER'], tenantName: '' });

export function useViewer(): ViewerInfo {
  return useContext(ViewerContext);
}
