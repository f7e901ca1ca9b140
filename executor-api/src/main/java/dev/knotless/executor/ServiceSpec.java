package dev.knotless.executor;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A container an executor starts beside a run, in the run's network namespace, before
 * {@link Executor#start} returns, and removes with the run (a workflow's {@code services:}).
 *
 * <p>Every executor makes {@link #name} resolve to {@code 127.0.0.1} in the run container, so a
 * step reaches the service at {@code name:port} the same way everywhere; two services of one run
 * therefore cannot listen on one port (the workflow parser refuses it).
 *
 * @param name the host name the steps use, a DNS label ({@code db})
 * @param image its OCI image
 * @param variables its environment, in order: the workflow's service variables only, never a secret
 * @param command its command, replacing the image's; empty for the image's own
 * @param ports TCP ports waited for before the run starts ({@link ServiceReadiness}); empty: none
 * @param readyWithin how long the ports may take, from when the service was started
 */
public record ServiceSpec(String name, String image, Map<String, String> variables, List<String> command,
        List<Integer> ports, Duration readyWithin) {

    private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");

    public ServiceSpec {
        Objects.requireNonNull(name, "name");
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a service name must be a DNS label (a-z, 0-9, -): '" + name + "'");
        }
        Objects.requireNonNull(image, "image");
        variables = Collections.unmodifiableMap(new LinkedHashMap<>(variables));
        command = List.copyOf(command);
        ports = List.copyOf(ports);
        for (int port : ports) {
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("service '" + name + "': port " + port + " is not 1..65535");
            }
        }
        Objects.requireNonNull(readyWithin, "readyWithin");
        if (readyWithin.isNegative() || readyWithin.isZero()) {
            throw new IllegalArgumentException("service '" + name + "': readyWithin must be positive");
        }
    }

    /** Names the variables, never their values (as {@link StepPayload}). */
    @Override
    public String toString() {
        return "ServiceSpec[name=" + name + ", image=" + image + ", variables=" + variables.keySet() + ", command="
                + command + ", ports=" + ports + ", readyWithin=" + readyWithin + "]";
    }
}
