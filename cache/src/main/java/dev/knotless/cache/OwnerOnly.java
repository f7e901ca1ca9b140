package dev.knotless.cache;

import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Modes for what the cache creates: a layer is what a run wrote, which can hold anything the run
 * had (docs/guide/caches.md), so only the runner's own user may read it (0600 files, 0700 dirs).
 */
final class OwnerOnly {

    static final FileAttribute<Set<PosixFilePermission>> FILE =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"));
    static final FileAttribute<Set<PosixFilePermission>> DIRECTORY =
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------"));

    private OwnerOnly() {}
}
