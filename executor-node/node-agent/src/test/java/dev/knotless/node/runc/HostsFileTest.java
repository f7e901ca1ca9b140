package dev.knotless.node.runc;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostsFileTest {

    @Test
    void theHostNameResolvesBeforeAndAfterTheAllocationHasAnAddress(@TempDir Path dir) throws Exception {
        Path hosts = dir.resolve("hosts");
        HostsFile.write(hosts, "alloc-1", Optional.empty());
        Object inode = Files.readAttributes(hosts, "unix:ino").get("ino");
        assertThat(Files.readString(hosts)).contains("127.0.0.1\tlocalhost\n").endsWith("127.0.1.1\talloc-1\n");

        HostsFile.write(hosts, "alloc-1", Optional.of("10.88.0.7/24"));
        assertThat(Files.readString(hosts)).endsWith("\n10.88.0.7\talloc-1\n").doesNotContain("127.0.1.1");
        assertThat(Files.readAttributes(hosts, "unix:ino").get("ino")).as("the same inode: the container's bind mount sees it")
                .isEqualTo(inode);
    }

    @Test
    void servicesAreLoopbackNamesBesideTheAllocationsOwn(@TempDir Path dir) throws Exception {
        Path hosts = dir.resolve("hosts");
        HostsFile.write(hosts, "alloc-1", Optional.of("10.88.0.7/24"), java.util.List.of("db", "web"));
        assertThat(Files.readString(hosts)).endsWith("10.88.0.7\talloc-1\n127.0.0.1\tdb web\n");
    }
}
