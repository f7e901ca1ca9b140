package dev.knotless.node.runc;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Optional;

/**
 * An allocation's {@code /etc/hosts}, in Docker's form: the loopback names, and the container's
 * host name at its address (at 127.0.1.1, as Debian does, until it has one).
 */
public final class HostsFile {

    private HostsFile() {}

    public static String content(String hostname, Optional<String> address) {
        return content(hostname, address, List.of());
    }

    /** With the allocation's services' names at 127.0.0.1: they share its network namespace. */
    public static String content(String hostname, Optional<String> address, List<String> services) {
        return "127.0.0.1\tlocalhost\n"
                + "::1\tlocalhost ip6-localhost ip6-loopback\n"
                + address.map(a -> a.replaceFirst("/.*", "")).orElse("127.0.1.1") + "\t" + hostname + "\n"
                + (services.isEmpty() ? "" : "127.0.0.1\t" + String.join(" ", services) + "\n");
    }

    /**
     * Writes the file in place: the container's {@code /etc/hosts} is a bind mount of this inode,
     * which a rename would leave behind.
     */
    public static void write(Path file, String hostname, Optional<String> address) throws IOException {
        write(file, hostname, address, List.of());
    }

    public static void write(Path file, String hostname, Optional<String> address, List<String> services) throws IOException {
        Files.writeString(file, content(hostname, address, services), StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING);
    }
}
