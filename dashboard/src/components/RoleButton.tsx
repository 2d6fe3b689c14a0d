import type { ButtonHTMLAttributes } from 'react';
import type { Role } from '../data/viewer.js';
import { useViewer } from '../data/viewer.js';

/** What the buttons that need a role do, for the line that says why they are disabled. */
const ROLE_ACTIONS: Partial<Record<Role, string>> = {
  SUBMITTER: 'New session, Run batch, Cancel and the schedule buttons are disabled',
  APPROVER: 'Approve and Reject are disabled',
};

const noteId = (role: Role) => `needs-${role.toLowerCase()}`;

/**
 * A button that needs a role. Without it, it is disabled by `aria-disabled` (a disabled button
 * takes no focus: keyboard and screen reader users could not reach it to learn why), described by
 * the line `RoleNotes` shows on every page, and its tooltip says the same.
 */
export function RoleButton({ role, disabled, title, onClick, ...props }: ButtonHTMLAttributes<HTMLButtonElement> & { role: Role }) {
  const { roles } = useViewer();
  if (roles.includes(role)) {
    return (
      <span className="role-button">
        <button {...props} onClick={onClick} disabled={disabled} title={title} />
      </span>
    );
  }
  return (
    <span className="role-button">
      <button
        {...props}
        aria-disabled="true"
        aria-describedby={noteId(role)}
        title={`Needs an API key with the ${role.toLowerCase()} role`}
        data-needs-role={role.toLowerCase()}
        onClick={(event) => event.preventDefault()}
      />
    </span>
  );
}

/** One visible line per role this key lacks that a button needs: why those buttons are disabled, without a hover. */
export function RoleNotes() {
  const { roles } = useViewer();
  const missing = (Object.keys(ROLE_ACTIONS) as Role[]).filter((role) => !roles.includes(role));
  if (missing.length === 0) return null;
  return (
    <div className="role-notes">
      {missing.map((role) => (
        <p key={role} id={noteId(role)}>
          This API key has no {role.toLowerCase()} role: {ROLE_ACTIONS[role]}.
        </p>
      ))}
    </div>
  );
}
