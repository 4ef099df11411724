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
        String homepage) {}
