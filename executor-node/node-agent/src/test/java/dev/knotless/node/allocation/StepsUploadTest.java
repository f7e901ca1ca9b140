package dev.knotless.node.allocation;

import static dev.knotless.testkit.CraftedTars.file;
import static dev.knotless.testkit.CraftedTars.symlink;
import static dev.knotless.testkit.CraftedTars.tar;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.knotless.node.agent.AllocationRuntime.RuntimeFailure;
import dev.knotless.node.protocol.Action;
import dev.knotless.node.runc.Runc;
import dev.knotless.testkit.CraftedTars;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent fills {@code /steps} from the host ({@link Transfers}), so a tar sent there is
 * extracted on the node: the same rules as every archive ({@code dev.knotless.tar.TarExtractor}).
 */
class StepsUploadTest {

    @TempDir Path dir;
    AllocationStore store;
    Transfers transfers;

    @BeforeEach
    void setUp() throws IOException {
        store = new AllocationStore(dir.resolve("state"));
        store.create(new AllocationRecord("alloc-1", "local/test@sha256:" + "0".repeat(64), 1000, 1L << 30, Map.of(), null));
        // /steps never reaches runc: a binary that does not exist proves it.
        transfers = new Transfers(new Runc(dir.resolve("no-runc").toString(), dir.resolve("runc"), Duration.ofSeconds(5)),
                new Bundles(null, null, null, store), store);
    }

    @Test
    void aLinkChainOutOfStepsIsRefusedAndNothingLeadsOutside() throws IOException {
        byte[] tar = tar(symlink("a", "."), symlink("b", "a/.."), symlink("c", "b/.."), file("run.sh", 1, 0100755));
        assertThatThrownBy(() -> upload(new ByteArrayInputStream(tar)))
                .isInstanceOf(RuntimeFailure.class)
                .hasMessageContaining("refused archive entry 'b'")
                .hasMessageContaining("outside the target");
        assertThat(Files.exists(steps().resolve("b"), LinkOption.NOFOLLOW_LINKS)).isFalse();
    }

    @Test
    void aSparseStepsEntryIsRefused() throws Exception {
        Path archive = CraftedTars.sparseGiB(dir, "gnu");
        try (InputStream in = Files.newInputStream(archive)) {
            assertThatThrownBy(() -> upload(in)).isInstanceOf(RuntimeFailure.class).hasMessageContaining("is a sparse file");
        }
        assertThat(steps().resolve("big")).doesNotExist();
    }

    @Test
    void stepScriptsKeepAtMostRwxrXrXAndNamesArePrintedEscaped() throws Exception {
        upload(new ByteArrayInputStream(tar(file("run.sh", 1, 0100777), file("data", 1, 0100666))));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(steps().resolve("run.sh")))).isEqualTo("rwxr-xr-x");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(steps().resolve("data")))).isEqualTo("rw-r--r--");

        assertThatThrownBy(() -> upload(new ByteArrayInputStream(tar(symlink("\u001b]0;owned\u0007", "/etc")))))
                .isInstanceOf(RuntimeFailure.class)
                .hasMessageContaining("refused archive entry '\\x1b]0;owned\\x07'");
    }

    private void upload(InputStream tar) throws RuntimeFailure {
        transfers.upload(new Action.Upload("node-1", "alloc-1", "/steps", 1 << 20), tar);
    }

    private Path steps() {
        return store.dir("alloc-1").resolve("steps");
    }
}
