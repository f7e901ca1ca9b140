package dev.knotless.node.runc;

import java.util.Objects;
import java.util.Optional;

/**
 * Hardening chosen by whoever runs the node, applied to every allocation. Nothing in an action can
 * widen these: a {@link BundleSpec} carries them from the node's configuration, never from a request.
 *
 * @param readOnlyRoot   {@code --read-only-root}: the image's rootfs is mounted read-only (a tmpfs
 *                       goes on {@code /tmp}; {@code /work} and {@code /outputs} stay writable)
 * @param runAs          {@code --run-as UID:GID}: every process runs as this user, whatever the image says
 * @param userNamespace  {@code --user-namespace}: a user namespace with this mapping
 * @param apparmor       {@code --apparmor PROFILE}: the AppArmor profile every process is confined by
 */
public record NodeOptions(boolean readOnlyRoot, Optional<RunAs> runAs, Optional<UserNamespace> userNamespace,
        Optional<String> apparmor) {

    public static final NodeOptions DEFAULT = new NodeOptions(false, Optional.empty(), Optional.empty(), Optional.empty());

    public NodeOptions {
        Objects.requireNonNull(runAs, "runAs");
        Objects.requireNonNull(userNamespace, "userNamespace");
        Objects.requireNonNull(apparmor, "apparmor");
        apparmor.ifPresent(p -> {
            if (!p.matches("[A-Za-z0-9][A-Za-z0-9._/-]{0,127}")) {
                throw new IllegalArgumentException("--apparmor wants a profile name, got '" + p + "'");
            }
        });
    }
}
