/** The statuses a job never leaves. */
export const TERMINAL_JOB_STATUSES = ['completed', 'partially_completed', 'failed', 'cancelled'];
export function isTerminalJobStatus(status) {
    return TERMINAL_JOB_STATUSES.includes(status);
}
