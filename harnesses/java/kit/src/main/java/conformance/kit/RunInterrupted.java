package conformance.kit;

import java.io.IOException;

/**
 * Thrown by a tool call the case cuts off before the tool answers (the user cancelled, the process
 * died): the run ends there, without a result, and the session's next run continues the conversation.
 */
public final class RunInterrupted extends IOException {
    public RunInterrupted(String reason) {
        super(reason);
    }

    /** The RunInterrupted among an error and its causes (a library wraps what a tool throws), or null. */
    public static RunInterrupted in(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof RunInterrupted interrupted) {
                return interrupted;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return null;
    }
}
