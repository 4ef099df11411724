package conformance.kit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The harness protocol, version 1 (docs/harness.md): JSON lines in, JSON lines out, one answer per
 * command. Nothing but answers reaches stdout: {@link #serve(Harness)} points System.out at stderr
 * before the library is loaded, so a library's own printing cannot corrupt the stream.
 */
public final class Protocol {
    public static final int VERSION = 1;

    private final Harness harness;
    private final PrintStream out;

    Protocol(Harness harness, PrintStream out) {
        this.harness = harness;
        this.out = out;
    }

    /** Serves the process's stdin and stdout until `stop` or end of input. */
    public static void serve(Harness harness) throws IOException {
        PrintStream answers = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        new Protocol(harness, answers).loop(System.in);
    }

    void loop(InputStream in) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
        String line;
        int number = 0;
        while ((line = reader.readLine()) != null) {
            number++;
            if (line.isBlank()) {
                continue;
            }
            JsonNode command;
            try {
                command = Json.MAPPER.readTree(line);
            } catch (com.fasterxml.jackson.core.JsonProcessingException notJson) {
                // The suite never sends this; say where, and wait for the next command.
                System.err.println("harness: stdin line " + number + " is not JSON: " + notJson.getOriginalMessage());
                continue;
            }
            String cmd = command.path("cmd").asText();
            switch (cmd) {
                case "start" -> answer(started(command));
                case "run" -> answer(ran(command));
                case "stop" -> {
                    return;
                }
                default -> System.err.println("harness: ignoring an unknown command: " + cmd);
            }
        }
    }

    private ObjectNode started(JsonNode command) {
        if (command.path("version").asInt() != VERSION) {
            System.err.println("harness: the suite speaks protocol version " + command.path("version")
                    + "; this harness speaks " + VERSION);
        }
        Implementation impl = harness.implementation();
        ObjectNode implementation = Json.MAPPER.createObjectNode();
        implementation.put("name", impl.name());
        implementation.put("language", "java");
        implementation.put("version", impl.version());
        ObjectNode libraries = implementation.putObject("libraries");
        impl.libraries().forEach(libraries::put);
        libraries.put("java", System.getProperty("java.version"));
        impl.apis().forEach(implementation.putArray("apis")::add);
        ObjectNode unsupported = implementation.putObject("unsupported");
        for (Map.Entry<String, String> entry : impl.unsupported().entrySet()) {
            unsupported.put(entry.getKey(), entry.getValue());
        }
        if (impl.continues() != null && !impl.continues().isEmpty()) {
            var continues = implementation.putArray("continues");
            impl.continues().forEach(continues::add);
        }
        if (impl.homepage() != null) {
            implementation.put("homepage", impl.homepage());
        }
        ObjectNode started = Json.MAPPER.createObjectNode();
        started.put("version", VERSION);
        started.set("implementation", implementation);
        return started;
    }

    ObjectNode ran(JsonNode command) {
        ObjectNode ran = Json.MAPPER.createObjectNode();
        ran.put("seq", command.path("seq").asLong());
        try {
            String output = harness.run(Case.from(command.path("case")));
            ran.put("ok", true);
            ran.put("output", output == null ? "" : output);
        } catch (Skipped skipped) {
            ran.put("skipped", skipped.getMessage());
        } catch (Throwable thrown) {
            ObjectNode errored = ran.putObject("errored");
            errored.put("message", describe(thrown));
            StringWriter stack = new StringWriter();
            thrown.printStackTrace(new PrintWriter(stack));
            errored.put("detail", stack.toString());
        }
        return ran;
    }

    /** The exception and its causes, one line: libraries wrap the HTTP failure that says what went wrong. */
    static String describe(Throwable thrown) {
        StringBuilder message = new StringBuilder(String.valueOf(thrown));
        for (Throwable cause = thrown.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
            message.append(" <- ").append(cause);
            if (message.length() > 2000) {
                break;
            }
        }
        return message.toString();
    }

    private void answer(ObjectNode message) throws IOException {
        out.println(Json.MAPPER.writeValueAsString(message));
        out.flush();
    }
}
