package conformance.kit;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** Installed versions, read from the jars on the class path, so `started` names what actually runs. */
public final class Versions {
    private Versions() {}

    /** The version in a Maven artifact's pom.properties, or "unknown" when its jar carries none. */
    public static String of(String groupId, String artifactId) {
        String path = "META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = Versions.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                return "unknown";
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }
}
