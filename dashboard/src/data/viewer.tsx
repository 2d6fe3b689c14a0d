// The signed-in key and its roles, for every view to enable or disable what needs a role.
import { createContext, useContext } from 'react';
/** A role as the dashboard compares it. */
export type Role = 'READER' | 'SUBMITTER' | 'APPROVER' | 'ADMIN';

export interface ViewerInfo {
  roles: Role[];
  tenantName: string;
}

export const ViewerContext = createContext<ViewerInfo>({ roles: ['READER'], tenantName: '' });

export function useViewer(): ViewerInfo {
  return useContext(ViewerContext);
}
