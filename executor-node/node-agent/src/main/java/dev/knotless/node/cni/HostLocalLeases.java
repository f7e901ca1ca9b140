package dev.knotless.node.cni;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * Reads (never writes) host-local's store: one file per leased address in {@code <dataDir>/<network>},
 * named by the address, whose first line is the container id (then the interface name). Beside them
 * host-local keeps {@code lock} and {@code last_reserved_ip.N}, which are not leases.
 */
record HostLocalLeases(Path dir) {

    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    // host-local writes IPv6 file names with '_' for ':' on some versions; accept both.
    private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F]*[:_][0-9a-fA-F:_.]*");

    /** Leased address → container id. */
    Map<String, String> leases() throws NetworkException {
        Map<String, String> leases = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return leases;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
            for (Path entry : entries) {
                String name = entry.getFileName().toString();
                if (!(IPV4.matcher(name).matches() || IPV6.matcher(name).matches()) || !Files.isRegularFile(entry)) {
                    continue;
                }
                String holder = firstLine(Files.readString(entry, StandardCharsets.UTF_8));
                if (!holder.isEmpty()) {
                    leases.put(name, holder);
                }
            }
        } catch (IOException e) {
            throw new NetworkException("cannot read host-local's leases in " + dir + ": " + e.getMessage());
        }
        return leases;
    }

    boolean held(String containerId) throws NetworkException {
        return leases().containsValue(containerId);
    }

    private static String firstLine(String text) {
        int nl = text.indexOf('\n');
        return (nl < 0 ? text : text.substring(0, nl)).strip();
    }
}
