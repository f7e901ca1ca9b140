package dev.knotless.node.protocol;

import java.util.List;
import java.util.regex.Pattern;

/**
 * A service of an allocation ({@link Action.CreateAllocation#services()}): a container of its own
 * image in the allocation's network namespace, named {@code name} in the allocation's
 * {@code /etc/hosts} as 127.0.0.1. What it runs is its image's entrypoint with {@code command}
 * (or the image's own command when empty), with the image's environment and {@code env}; the
 * allocation's hardening applies, under the image's user.
 *
 * @param name a DNS label, unique in the allocation
 * @param image pinned by digest, as an allocation's
 * @param env {@code NAME=value} entries, in order: the workflow's service variables, never a secret
 * @param command replaces the image's command; empty for the image's own
 */
public record ServiceContainer(String name, String image, List<String> env, List<String> command) {

    /** As many as a workflow may have (runner-core's GraphReader). */
    public static final int MAX_SERVICES = 8;

    private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
    private static final Pattern ENV = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*=[^\\x00]*", Pattern.DOTALL);

    /** {@code name} when it is a DNS label, as a service's name must be. */
    public static String requireName(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("service name must be a DNS label, got " + Names.quote(String.valueOf(name)));
        }
        return name;
    }

    public ServiceContainer {
        requireName(name);
        Names.image(image);
        env = List.copyOf(env);
        for (String e : env) {
            if (!ENV.matcher(e).matches()) {
                throw new IllegalArgumentException("service " + name + ": an env entry must be NAME=value without NUL");
            }
        }
        command = List.copyOf(command);
        for (String arg : command) {
            if (arg.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("service " + name + ": a command argument holds NUL");
            }
        }
    }
}
