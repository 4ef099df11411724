package conformance.kit;

import java.util.List;
import java.util.Map;

/**
 * The `started` answer's implementation: the matrix column ({@code name}, {@code version}), every
 * package used with its installed version, the APIs served and why the others are not.
 */
public record Implementation(
        String name,
        String version,
        Map<String, String> libraries,
        List<String> apis,
        Map<String, String> unsupported,
        String homepage,
        List<String> continues) {
    /** What the harness can be handed beyond a new conversation: "history", "sessions" (none here). */
    public Implementation(
            String name,
            String version,
            Map<String, String> libraries,
            List<String> apis,
            Map<String, String> unsupported,
            String homepage) {
        this(name, version, libraries, apis, unsupported, homepage, List.of());
    }
}
