package dev.knotless.plan;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A container started beside a run before its first step and stopped after its last, reachable from
 * the steps by {@code name} as a host name on every executor ({@code services:} of a workflow).
 *
 * @param name the host name, such as {@code db}
 * @param image its OCI image
 * @param variables its environment, in the file's order; never a secret
 * @param command its command, replacing the image's; empty for the image's own
 * @param ports TCP ports waited for (a connection accepted) before the first step; empty: not waited for
 * @param readyWithin ({@code wait:}) how long the ports may take; a service not ready by then ends the run {@code error} naming it
 */
public record Service(String name, String image, Map<String, String> variables, List<String> command, List<Integer> ports,
        Duration readyWithin) {

    /** How long a service's ports are waited for when the file does not say. */
    public static final Duration DEFAULT_WAIT = Duration.ofSeconds(60);

    public Service {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(image, "image");
        variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables));
        command = List.copyOf(command);
        ports = List.copyOf(ports);
        Objects.requireNonNull(readyWithin, "readyWithin");
    }

    /** This service with its image named otherwise ({@code ${matrix.KEY}} filled in). */
    public Service withImage(String value) {
        return new Service(name, value, variables, command, ports, readyWithin);
    }
}
