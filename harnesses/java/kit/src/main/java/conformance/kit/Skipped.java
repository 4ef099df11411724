package conformance.kit;

/** Thrown by a harness when its library cannot express a case; answered as `skipped` with the reason. */
public final class Skipped extends RuntimeException {
    public Skipped(String reason) {
        super(reason);
    }
}
