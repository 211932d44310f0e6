/** Whose request this is: every query filters by `projectId`; `userId` is recorded as the author of writes. */
export interface Scope {
  projectId: string;
  userId: string | null;
}
