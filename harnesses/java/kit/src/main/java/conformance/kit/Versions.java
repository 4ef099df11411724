package conformance.kit;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Enumeration;
import java.util.Properties;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Installed versions, read from the jars on the class path, so `started` names what actually runs. */
public final class Versions {
    private Versions() {}

    /**
     * The version of a Maven artifact on the class path: its jar's pom.properties, else the
     * {@code Implementation-Version} of the manifest of the jar named after it, else the version in
     * that jar's file name ({@code artifact-1.2.3.jar}); "unknown" when no jar of that name is found.
     * Jars built by Gradle (many SDKs) carry a manifest and no pom.properties.
     */
    public static String of(String groupId, String artifactId) {
        String fromPom = pomVersion(groupId, artifactId);
        return fromPom != null ? fromPom : jarVersion(artifactId);
    }

    /** The version of the jar a class of the library came from: its package's, else its manifest's. */
    public static String of(Class<?> libraryClass) {
        Package pkg = libraryClass.getPackage();
        if (pkg != null && pkg.getImplementationVersion() != null) {
            return pkg.getImplementationVersion();
        }
        return "unknown";
    }

    private static String pomVersion(String groupId, String artifactId) {
        String path = "META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = Versions.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                return null;
            }
            Properties properties = new Properties();
            properties.load(in);
            return properties.getProperty("version");
        } catch (IOException e) {
            return null;
        }
    }

    private static String jarVersion(String artifactId) {
        Pattern jar = Pattern.compile("/" + Pattern.quote(artifactId) + "-(\\d[^/]*?)\\.jar!/META-INF/MANIFEST\\.MF$");
        try {
            Enumeration<URL> manifests = Versions.class.getClassLoader().getResources("META-INF/MANIFEST.MF");
            while (manifests.hasMoreElements()) {
                URL url = manifests.nextElement();
                Matcher named = jar.matcher(url.toString());
                if (!named.find()) {
                    continue;
                }
                try (InputStream in = url.openStream()) {
                    String declared = new Manifest(in).getMainAttributes().getValue("Implementation-Version");
                    return declared != null && !declared.isBlank() ? declared : named.group(1);
                }
            }
        } catch (IOException e) {
            return "unknown";
        }
        return "unknown";
    }
}
