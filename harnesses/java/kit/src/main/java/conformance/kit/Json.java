package conformance.kit;

import com.fasterxml.jackson.databind.ObjectMapper;

/** The kit's one JSON mapper. */
public final class Json {
    public static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {}
}
