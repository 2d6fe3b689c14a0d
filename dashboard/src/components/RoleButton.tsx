import type { ButtonHTMLAttributes } from 'react';
import type { Role } from '../data/viewer.js';
import { useViewer } from '../data/viewer.js';

/** A button that needs a role: without it, it is disabled and its tooltip says which role. */
export function RoleButton({ role, disabled, title, ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { role: Role }) {
  const { roles } = useViewer();
  const allowed = roles.includes(role);
  const reason = allowed ? title : `Needs an API key with the ${role.toLowerCase()} role`;
  return (
    <span title={reason} className="role-button">
      <button {...props} disabled={disabled || !allowed} title={reason} aria-disabled={disabled || !allowed} data-needs-role={allowed ? undefined : role.toLowerCase()} />
    </span>
  );
}
