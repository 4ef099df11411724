package conformance.kit;

/** A library's tool loop behind the harness protocol; {@link Protocol#serve} speaks the protocol. */
public interface Harness {
    /** Who answers `start`: the library, its versions and the APIs it serves. */
    Implementation implementation();

    /**
     * Runs the library's own tool loop on one case until the model answers in text, and returns that
     * text. Throw {@link Skipped} when the library cannot express the case; any other exception is
     * answered as `errored`.
     */
    String run(Case c) throws Exception;
}
