package dev.knotless.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * {@code docker events} for the containers of one runner, as the engine timestamps them: when each
 * container was created and started, seen by the engine rather than by the runner.
 */
final class ContainerEvents implements AutoCloseable {

    private final Process process;
    private final Map<String, Instant> seen = new ConcurrentHashMap<>();

    private ContainerEvents(Process process) {
        this.process = process;
    }

    static ContainerEvents follow(String runnerId) throws IOException {
        Process p = new ProcessBuilder("docker", "events", "--filter", "type=container",
                "--filter", "label=dev.knotless.runner=" + runnerId,
                "--format", "{{.TimeNano}} {{.Action}} {{.Actor.Attributes.name}}")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        ContainerEvents events = new ContainerEvents(p);
        Thread.ofVirtual().name("docker-events").start(events::read);
        return events;
    }

    private void read() {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = lines.readLine()) != null) {
                String[] f = line.split(" ");
                // exec events read "exec_start: sh -c …" with the name last; only create and start matter here.
                if (f.length == 3 && (f[1].equals("create") || f[1].equals("start"))) {
                    long nanos = Long.parseLong(f[0]);
                    seen.putIfAbsent(f[2] + " " + f[1], Instant.ofEpochSecond(0, nanos));
                }
            }
        } catch (IOException | RuntimeException e) {
            // the process was closed; await says what is missing
        }
    }

    /** Whether the engine has reported {@code action} of {@code container} so far; does not wait. */
    boolean seen(String container, String action) {
        return seen.containsKey(container + " " + action);
    }

    /** When the engine reported {@code action} of {@code container}; waits a little for the event to arrive. */
    Instant await(String container, String action) throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            Instant at = seen.get(container + " " + action);
            if (at != null) {
                return at;
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException("docker events did not report " + action + " of " + container);
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor(10, TimeUnit.SECONDS);
    }
}
